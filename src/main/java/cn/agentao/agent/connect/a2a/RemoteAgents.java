package cn.agentao.agent.connect.a2a;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.tool.ToolSchemas;
import cn.agentao.agent.core.tool.Connector;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.permission.NetworkGuard;
import dev.langchain4j.agent.tool.ToolSpecification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The remote A2A agents of the user's config.json as a tool source: one {@code a2a__NAME} tool each. */
public final class RemoteAgents implements ToolSource {
    private static final Logger log = LoggerFactory.getLogger(RemoteAgents.class);

    private final List<RemoteAgentTool> tools;

    public RemoteAgents(List<RemoteAgentTool> tools) { this.tools = List.copyOf(tools); }

    /** From {@code configDir/config.json}'s {@code a2aAgents} (the user's own file only: a project cannot add one). */
    public static RemoteAgents fromUserConfig(AgentConfig config) {
        List<String> problems = new ArrayList<>();
        NetworkGuard guard = NetworkGuard.of(config.network());
        List<RemoteAgentTool> tools = A2aAgentConfig.read(config.userJson(), problems).stream()
                .map(c -> new RemoteAgentTool(c, config.environment(), guard)).toList(); // the tokens' variables
        problems.forEach(p -> log.warn("configuration: {}", p));
        return new RemoteAgents(tools);
    }

    /** Adds the user's remote agents to every session of {@code sessions} (nothing when none is configured). */
    public static void register(SessionService sessions, AgentConfig config) {
        RemoteAgents agents = fromUserConfig(config);
        if (!agents.isEmpty()) sessions.addConnector(Connector.shared(agents));
    }

    public boolean isEmpty() { return tools.isEmpty(); }

    @Override public String name() { return "a2a"; }

    /** Built each time: a description grows once the remote's card has been read. */
    @Override
    public List<ToolSpecification> specifications() {
        return tools.stream().map(t -> ToolSpecification.builder().name(t.name()).description(t.description())
                .parameters(ToolSchemas.objectSchema(t.inputSchema())).build()).toList();
    }

    @Override
    public Optional<Tool> tool(String name) {
        return tools.stream().filter(t -> t.name().equals(name)).<Tool>map(t -> t).findFirst();
    }
}
