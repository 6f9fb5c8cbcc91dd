package cn.agentao.agent.util;

/** Thrown by work that stopped because its {@link Cancellation} fired. */
public final class CancelledException extends Exception {
    public CancelledException() {
        super("cancelled", null, false, false);
    }
}
