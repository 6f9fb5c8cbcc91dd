package cn.agentao.agent.core.tool;

/**
 * What plugs another system's tools into sessions: MCP servers, an A2C-SMCP office, remote A2A agents, an Agora
 * space. One way for all of them: the process registers each connector once at start
 * ({@link cn.agentao.agent.core.SessionService#addConnector}), and every session that opens asks each, in that
 * order, for what it gets (a per-session tool-source factory, as LangChain4j's {@code ToolProvider}).
 * Implementations must be thread-safe; the core imports none of them.
 */
public interface Connector {
    /** Gives a session that is opening (its door's user does not know it yet) its tool sources, commands, resources. */
    void open(ConnectorSession session);

    /** A connector whose one source every session shares (an SMCP office, the configured remote agents). */
    static Connector shared(ToolSource source) {
        return session -> session.addToolSource(source);
    }
}
