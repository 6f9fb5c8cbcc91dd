package cn.agentao.agent.core.hook;

/**
 * The user's hooks: commands run at a session's events (before and after a tool call, a prompt submitted, a turn
 * stopping, a session's first turn) with a JSON payload, whose answers may deny, ask, block or add context, in the
 * schema of Claude Code's {@code hooks.json}. The core calls it at those events; the process registers the
 * implementation ({@code SessionService.useHooks}); without one, nothing runs.
 */
public interface Hooks {
    /** No hooks: every event passes unchanged. */
    Hooks NONE = call -> HookOutcome.NONE;

    /**
     * Runs every hook configured for {@code call}'s event (and matching its subject) and combines their answers.
     * Never throws: a hook that fails or times out is in the outcome's {@link HookOutcome#failed} and notices.
     */
    HookOutcome run(HookCall call);
}
