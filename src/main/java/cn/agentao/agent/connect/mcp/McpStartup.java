package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.tool.CommandSource;
import cn.agentao.agent.core.tool.Connector;
import cn.agentao.agent.core.tool.ConnectorSession;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The MCP connector: starts a session's MCP servers (the door's list over the user's and the project's mcp.json)
 * and gives the session their tools, their prompts as slash commands, and their shutdown when it closes. The
 * project's servers start only when the user trusts that very file; otherwise they are asked about once the
 * session is ready ({@link ProjectTrustQuestion}).
 */
public final class McpStartup implements Connector {
    /** How long opening a session waits for MCP servers before the slow ones join later. */
    static final Duration MCP_READY_WAIT = Duration.ofMillis(2500);

    private final Map<String, String> env;
    private final TrustedProjects trust;

    public McpStartup(Map<String, String> env, TrustedProjects trust) {
        this.env = env;
        this.trust = trust;
    }

    /**
     * Starts them all at once, waiting at most {@link #MCP_READY_WAIT}: a slow one joins when ready, a failed one
     * is named to the user, and the session goes on either way.
     */
    @Override
    public void open(ConnectorSession session) {
        ProjectMcpFile project = ProjectMcpFile.read(session.cwd()).orElse(null);
        List<String> projectProblems = new ArrayList<>();
        boolean hasProjectServers = project != null && !project.unexpanded(projectProblems).isEmpty();
        boolean approved = hasProjectServers && trust.approved(session.cwd(), project);
        McpConfigFiles.Result config = McpConfigFiles.serversFor(approved ? project : null, env, session.mcpServers());
        if (!approved) projectProblems.forEach(w -> session.notice("MCP configuration: " + w));
        config.warnings().forEach(w -> session.notice("MCP configuration: " + w));
        boolean ask = false;
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
                ask = true;
            }
        }
        if (config.servers().isEmpty() && !ask) return;
        McpServerSet servers = McpServerSet.start(config.servers(), session.cwd(), session.children(), new McpServerSet.Listener() {
            @Override public void serverFailed(String name, String reason) {
                session.notice("MCP server \"" + name + "\" is unavailable: " + reason);
            }
            @Override public void serverReady(String name) { session.commandsChanged(); }
            @Override public void serverChanged(String name) { session.commandsChanged(); }
        });
        session.onClose(servers::close);
        session.addToolSource(new McpToolSource(servers));
        session.addCommands(new Prompts(servers));
        if (ask) {
            session.whenReady(() -> new ProjectTrustQuestion(session, project, trust, () -> startProjectServers(session, servers, project)).ask());
        }
        servers.awaitReady(MCP_READY_WAIT);
    }

    /** Starts the project's servers from the file the user just trusted (the door's own servers keep their names). */
    private void startProjectServers(ConnectorSession session, McpServerSet servers, ProjectMcpFile project) {
        List<String> warnings = new ArrayList<>();
        var definitions = project.servers(env, warnings);
        warnings.forEach(w -> session.notice("MCP configuration: " + w));
        servers.add(definitions);
    }

    /** The servers' prompts as slash commands. */
    private record Prompts(McpServerSet servers) implements CommandSource {
        @Override public List<AvailableCommand> commands() { return servers.commands(); }

        @Override public boolean hasCommand(String name) { return servers.hasCommand(name); }

        @Override
        public String prompt(String name, String arguments, Cancellation cancel) throws ToolException, CancelledException {
            try {
                return servers.getPrompt(name, arguments, cancel);
            } catch (McpException e) {
                throw new ToolException(e.getMessage());
            }
        }
    }
}
