package cn.agentao.agent.core.tool;

import dev.langchain4j.agent.tool.ToolSpecification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** What the turn asks of its sources, in their order: the first source that has a name wins. */
public final class ToolSources {
    private static final Logger log = LoggerFactory.getLogger(ToolSources.class);

    private ToolSources() {}

    /** Every source's specifications; a name a source earlier in the list already offers is left out. */
    public static List<ToolSpecification> specifications(List<ToolSource> sources) {
        List<ToolSpecification> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ToolSource s : sources) {
            for (ToolSpecification spec : s.specifications()) {
                if (names.add(spec.name())) out.add(spec);
                else log.debug("tool source {}: \"{}\" is shadowed by an earlier source", s.name(), spec.name());
            }
        }
        return out;
    }

    /** The tool called {@code name} from the first source that has it. */
    public static Optional<Tool> find(List<ToolSource> sources, String name) {
        for (ToolSource s : sources) {
            Optional<Tool> t = s.tool(name);
            if (t.isPresent()) return t;
        }
        return Optional.empty();
    }
}
