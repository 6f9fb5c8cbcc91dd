package cn.agentao.agent.core.tool;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.Host;

import java.nio.file.Path;
import java.util.List;

/** What a {@link Connector} sees of a session that opens, and what it may give it. */
public interface ConnectorSession {
    String id();

    /** The session's cwd (absolute). */
    Path cwd();

    /** The MCP servers the door asked for (ACP's {@code mcpServers}); empty for other doors. */
    List<McpServerConfig> mcpServers();

    /** The environment the session's child processes (commands, stdio servers) get: variables, credentials hidden. */
    ChildEnvironment children();

    /** The session's front door, for a question only the user can answer. */
    Host host();

    /** Shows an event to the session's user (e.g. a question shown as a tool call). */
    void emit(AgentEvent event);

    /** Tells the user something outside any answer (held until the session is ready). */
    void notice(String text);

    /** Whether the door's user knows the session yet. */
    boolean isReady();

    /** Adds a tool source for this session only. */
    void addToolSource(ToolSource source);

    /** Adds slash commands for this session only (e.g. MCP prompts). */
    void addCommands(CommandSource commands);

    /** The session's command list changed (a server became ready): the door is told again, once the session is ready. */
    void commandsChanged();

    /** Closed when the session closes (e.g. the session's MCP servers). */
    void onClose(AutoCloseable resource);

    /** Runs {@code task} on its own thread once the session is ready (e.g. a question for its user). */
    void whenReady(Runnable task);

    /** The session's skills ({@code .agent/skills/}, …), found on the first call, not while the session opens. */
    cn.agentao.agent.skills.SkillCatalog skills();

    /** The project's trust changed: its configuration (the project's .env, models) is read afresh. */
    void projectTrustChanged();

    /** Whether the user trusts the session's project (its own definitions, hooks and servers may be used). */
    boolean projectTrusted();

    /** Runs the session's subagents (child sessions), for its {@code task} tool. */
    Subagents subagents();
}
