package cn.agentao.agent.permission;

/** The outcome of a permission decision. */
public enum Verdict {
    /** Run without asking. */
    ALLOW,
    /** Ask the user through {@code session/request_permission}. */
    ASK,
    /** Refuse without asking; the reason goes back to the model. */
    DENY
}
