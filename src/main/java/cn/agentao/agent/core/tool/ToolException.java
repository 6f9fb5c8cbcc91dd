package cn.agentao.agent.core.tool;

/** Bad arguments or an impossible request; the message is for the model. */
public class ToolException extends Exception {
    public ToolException(String message) {
        super(message);
    }
}
