package cn.agentao.agent.core.content;

/**
 * How a prompt turn ended: why, the context use after its last model call (null when no model was called),
 * the agent's answer text of this turn (for doors that answer with one message, e.g. A2A or {@code -p}), and
 * why the model failed when it did ({@code error}, the reason also shown as "Error: …" text; null otherwise: the
 * turn still ends with {@code end_turn}, so a headless door can tell a failure from an answer). {@code answerCut}:
 * the failure came after part of the answer was shown (its stream was cut): {@code text} holds that part, which is
 * incomplete, and ACP answers the prompt with an error rather than a stop reason.
 */
public record TurnResult(StopReason stopReason, Usage usage, String text, String error, boolean answerCut) {
    public boolean failed() { return error != null; }

    /** Tokens used of the context window's size. */
    public record Usage(long used, long size) {}
}
