package cn.agentao.agent.core.content;

/**
 * How a prompt turn ended: why, the context use after its last model call (null when no model was called),
 * and the agent's answer text of this turn (for doors that answer with one message, e.g. A2A or {@code -p}).
 */
public record TurnResult(StopReason stopReason, Usage usage, String text) {
    /** Tokens used of the context window's size. */
    public record Usage(long used, long size) {}
}
