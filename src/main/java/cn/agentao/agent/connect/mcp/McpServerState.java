package cn.agentao.agent.connect.mcp;

/** Where an MCP server of a session stands. */
public enum McpServerState {
    /** Connecting, or restarting after a crash. */
    STARTING,
    /** Its tools and prompts are offered. */
    READY,
    /** It could not start, or stopped again after its one restart; the reason was reported. */
    FAILED,
    /** The session closed it. */
    STOPPED
}
