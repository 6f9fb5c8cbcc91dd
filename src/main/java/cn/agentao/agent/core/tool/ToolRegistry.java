package cn.agentao.agent.core.tool;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Tools by name (e.g. the built-ins, see {@code tools.BuiltinTools}); names are unique. Immutable. */
public final class ToolRegistry {
    private final Map<String, Tool> byName;

    public ToolRegistry(Collection<? extends Tool> tools) {
        Map<String, Tool> map = new LinkedHashMap<>();
        for (Tool t : tools) {
            if (map.putIfAbsent(t.name(), t) != null) throw new IllegalArgumentException("duplicate tool name: " + t.name());
        }
        this.byName = map;
    }

    /** A registry with these tools added (e.g. a session's MCP tools); names must not clash. */
    public ToolRegistry with(Collection<? extends Tool> more) {
        List<Tool> all = new ArrayList<>(byName.values());
        all.addAll(more);
        return new ToolRegistry(all);
    }

    public List<Tool> all() {
        return List.copyOf(byName.values());
    }

    public Optional<Tool> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }
}
