package cn.agentao.agent.core;

import cn.agentao.agent.connect.mcp.McpConfigFiles;
import cn.agentao.agent.connect.mcp.McpServerSet;
import cn.agentao.agent.connect.mcp.McpToolSource;
import cn.agentao.agent.connect.mcp.ProjectMcpFile;
import cn.agentao.agent.trust.TrustedProjects;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Starts a session's MCP servers (the door's list over the user's and the project's mcp.json) and makes them one
 * of its tool sources. The project's servers start only when the user trusts that very file; otherwise they are
 * asked about once the session is ready ({@link ProjectTrustQuestion}).
 */
final class McpStartup {
    /** How long opening a session waits for MCP servers before the slow ones join later. */
    static final Duration MCP_READY_WAIT = Duration.ofMillis(2500);

    private final Map<String, String> env;
    private final TrustedProjects trust;
    private final Consumer<Session> commandsChanged;

    McpStartup(Map<String, String> env, TrustedProjects trust, Consumer<Session> commandsChanged) {
        this.env = env;
        this.trust = trust;
        this.commandsChanged = commandsChanged;
    }

    /**
     * Starts them all at once, waiting at most {@link #MCP_READY_WAIT}: a slow one joins when ready, a failed one
     * is named to the user, and the session goes on either way.
     */
    void start(Session session) {
        ProjectMcpFile project = ProjectMcpFile.read(session.cwd()).orElse(null);
        List<String> projectProblems = new ArrayList<>();
        boolean hasProjectServers = project != null && !project.unexpanded(projectProblems).isEmpty();
        boolean approved = hasProjectServers && trust.approved(session.cwd(), project);
        McpConfigFiles.Result config = McpConfigFiles.serversFor(approved ? project : null, env, session.mcpServers());
        if (!approved) projectProblems.forEach(w -> session.notice("MCP configuration: " + w));
        config.warnings().forEach(w -> session.notice("MCP configuration: " + w));
        if (hasProjectServers && !approved) {
            if (trust.declined(session.cwd(), project)) {
                session.notice("The project's MCP servers (" + project.file() + ") were not started: you declined this file. "
                        + "Remove the project from " + trust.file() + " to be asked again.");
            } else {
                List<String> changed = trust.changedStartFiles(session.cwd(), project);
                if (!changed.isEmpty()) {
                    session.notice("The project's MCP servers (" + project.file() + ") wait for your answer again: "
                            + String.join(", ", changed) + (changed.size() == 1 ? " has" : " have")
                            + " changed since you trusted the project.");
                }
                session.pendingTrustQuestion(project);
            }
        }
        if (config.servers().isEmpty() && session.pendingTrustQuestion() == null) return;
        McpServerSet servers = McpServerSet.start(config.servers(), session.cwd(), session.children(), new McpServerSet.Listener() {
            @Override public void serverFailed(String name, String reason) {
                session.notice("MCP server \"" + name + "\" is unavailable: " + reason);
            }
            @Override public void serverReady(String name) { if (session.isReady()) commandsChanged.accept(session); }
            @Override public void serverChanged(String name) { if (session.isReady()) commandsChanged.accept(session); }
        });
        session.mcp(servers);
        session.addToolSource(new McpToolSource(servers));
        servers.awaitReady(MCP_READY_WAIT);
    }

    /** Starts the project's servers from the file the user just trusted (the door's own servers keep their names). */
    void startProjectServers(Session session, ProjectMcpFile project) {
        List<String> warnings = new ArrayList<>();
        var definitions = project.servers(env, warnings);
        warnings.forEach(w -> session.notice("MCP configuration: " + w));
        if (session.mcp() != null) session.mcp().add(definitions);
    }
}
