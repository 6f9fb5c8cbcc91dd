package cn.agentao.agent.tools;

import cn.agentao.agent.core.tool.ToolSchemas;
import cn.agentao.agent.core.tool.ShellTool;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolRegistry;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.tools.exec.BackgroundCommandTool;
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
import cn.agentao.agent.tools.web.WebSearchConfig;
import cn.agentao.agent.tools.web.WebSearchTool;
import dev.langchain4j.agent.tool.ToolSpecification;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The built-in tools (files, search, shell, web fetch and search, ask_user, todo) as a tool source: the one place they are
 * listed. The process registers it with the core first (before any connector's), with {@link #shell()} as the tool
 * the user's own commands go through.
 */
public final class BuiltinTools implements ToolSource {
    private final ToolRegistry registry;
    private final ShellTool shell;
    private volatile List<ToolSpecification> specifications; // built on first use, off the start-up path

    private BuiltinTools(ToolRegistry registry, ShellTool shell) {
        this.registry = registry;
        this.shell = shell;
    }

    /** The built-ins; web_fetch is guarded by {@code guard}. */
    public static BuiltinTools create(NetworkGuard guard) {
        return create(guard, null);
    }

    /** The built-ins, with web_search when {@code search} configures a backend (null: not offered). */
    public static BuiltinTools create(NetworkGuard guard, WebSearchConfig search) {
        RunShellCommandTool shell = new RunShellCommandTool();
        List<Tool> tools = new ArrayList<>(List.of(new ReadFileTool(), new WriteFileTool(), new EditTool(),
                new ListDirectoryTool(), new GlobTool(), new GrepTool(), shell, BackgroundCommandTool.output(), BackgroundCommandTool.kill(),
                new WebFetchTool(guard)));
        if (search != null) tools.add(new WebSearchTool(guard, search));
        tools.addAll(List.of(new TodoWriteTool(), new AskUserTool()));
        return new BuiltinTools(new ToolRegistry(tools), shell);
    }

    /** Every built-in tool, in the order the model is offered them. */
    public List<Tool> all() { return registry.all(); }

    /** The shell the user's own command lines run through. */
    public ShellTool shell() { return shell; }

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
