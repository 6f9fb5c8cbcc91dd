package cn.agentao.agent.core.hook;

/** The events hooks run at, by the names Claude Code's {@code hooks.json} uses. */
public enum HookEvent {
    /** Before a tool call runs (after the user saw it start, before the permission decision); subject: the tool. */
    PRE_TOOL_USE("PreToolUse"),
    /** After a tool call ran; subject: the tool. */
    POST_TOOL_USE("PostToolUse"),
    /** A prompt for the model was submitted, before the model sees it. */
    USER_PROMPT_SUBMIT("UserPromptSubmit"),
    /** The model ended its answer (no more tool calls): the turn would stop. */
    STOP("Stop"),
    /** The session's first turn in this process begins; subject: {@code startup} or {@code resume}. */
    SESSION_START("SessionStart");

    private final String wire;

    HookEvent(String wire) { this.wire = wire; }

    /** The name in {@code hooks.json} and in the payload's {@code hook_event_name}. */
    public String wire() { return wire; }

    /** Whether its hooks are chosen by a matcher (tool names; for SessionStart, the source). */
    public boolean matched() { return this == PRE_TOOL_USE || this == POST_TOOL_USE || this == SESSION_START; }
}
