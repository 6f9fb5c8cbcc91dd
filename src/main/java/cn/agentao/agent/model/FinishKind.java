package cn.agentao.agent.model;

/** Why the model stopped. */
public enum FinishKind {
    /** It finished its answer. */
    STOP,
    /** It wants tools run. */
    TOOL_CALLS,
    /** It hit the output token limit. */
    LENGTH,
    /** The provider's content filter stopped it. */
    CONTENT_FILTER,
    /** Anything else, including a provider that did not say. */
    OTHER
}
