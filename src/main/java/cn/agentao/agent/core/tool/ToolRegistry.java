package cn.agentao.agent.core.tool;

import cn.agentao.agent.tools.exec.RunShellCommandTool;
import cn.agentao.agent.tools.files.EditTool;
import cn.agentao.agent.tools.files.ListDirectoryTool;
import cn.agentao.agent.tools.files.ReadFileTool;
import cn.agentao.agent.tools.files.WriteFileTool;
import cn.agentao.agent.tools.search.GlobTool;
import cn.agentao.agent.tools.search.GrepTool;
import cn.agentao.agent.tools.user.AskUserTool;
import cn.agentao.agent.tools.user.TodoWriteTool;
import cn.agentao.agent.tools.web.WebFetchTool;
import cn.agentao.agent.permission.NetworkGuard;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The tools a session offers: the built-ins, plus (per session) tools from its MCP servers. Immutable. */
public final class ToolRegistry {
    private final Map<String, Tool> byName;

    public ToolRegistry(Collection<? extends Tool> tools) {
        Map<String, Tool> map = new LinkedHashMap<>();
        for (Tool t : tools) {
            if (map.putIfAbsent(t.name(), t) != null) throw new IllegalArgumentException("duplicate tool name: " + t.name());
        }
        this.byName = map;
    }

    /** The built-in tools; web_fetch is guarded by {@code guard}. */
    public static ToolRegistry builtins(NetworkGuard guard) {
        return new ToolRegistry(List.of(new ReadFileTool(), new WriteFileTool(), new EditTool(),
                new ListDirectoryTool(), new GlobTool(), new GrepTool(), new RunShellCommandTool(),
                new WebFetchTool(guard), new TodoWriteTool(), new AskUserTool()));
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
