package cn.agentao.agent.core.hook;

import java.util.List;

/**
 * What the hooks of one event said together. {@code verdict}: the strongest decision (deny over ask over allow);
 * for events other than PreToolUse, {@link Verdict#DENY} means "block" (the prompt is not sent, the turn goes on, the
 * tool's result carries the reason). {@code reason}: why (for the model and the user). {@code context}: text the hooks
 * add for the model. {@code notices}: what the user must see (a hook that failed or timed out, a hook's
 * {@code systemMessage}). {@code failed}: some hook did not answer properly, so PreToolUse must not let the call
 * pass silently.
 */
public record HookOutcome(Verdict verdict, String reason, List<String> context, List<String> notices, boolean failed) {
    public static final HookOutcome NONE = new HookOutcome(Verdict.NONE, null, List.of(), List.of(), false);

    public enum Verdict { NONE, ALLOW, ASK, DENY }

    public HookOutcome {
        context = List.copyOf(context);
        notices = List.copyOf(notices);
    }

    public boolean denied() { return verdict == Verdict.DENY; }
}
