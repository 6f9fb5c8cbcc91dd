package cn.agentao.agent.connect.mcp;

/** An MCP operation failed; the message is in plain words, safe to show the user (it holds no secrets). */
public final class McpException extends Exception {
    public McpException(String message) {
        super(message, null, false, false);
    }
}
