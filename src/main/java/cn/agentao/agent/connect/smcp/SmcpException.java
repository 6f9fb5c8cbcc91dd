package cn.agentao.agent.connect.smcp;

/** An office request that failed; the message is a plain sentence for the user and the model. */
public final class SmcpException extends Exception {
    public SmcpException(String message) {
        super(message);
    }
}
