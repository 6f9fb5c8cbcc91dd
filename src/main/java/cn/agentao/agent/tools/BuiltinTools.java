package cn.agentao.agent.tools;

import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.core.ToolSchemas;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolRegistry;
import dev.langchain4j.agent.tool.ToolSpecification;

import java.util.List;
import java.util.Optional;

/** The built-in tools (files, search, shell, web fetch, ask_user, todo) as a tool source. */
public final class BuiltinTools implements ToolSource {
    private final ToolRegistry registry;
    private volatile List<ToolSpecification> specifications; // built on first use, off the start-up path

    public BuiltinTools(ToolRegistry registry) {
        this.registry = registry;
    }

    @Override public String name() { return "builtin"; }

    @Override
    public List<ToolSpecification> specifications() {
        List<ToolSpecification> s = specifications;
        if (s == null) {
            s = registry.all().stream().map(t -> ToolSpecification.builder().name(t.name()).description(t.description())
                    .parameters(ToolSchemas.objectSchema(t.inputSchema())).build()).toList();
            specifications = s;
        }
        return s;
    }

    @Override public Optional<Tool> tool(String name) { return registry.find(name); }
}
