package cn.agentao.agent.model;

/** One selectable model: {@code provider/model}. */
public record ModelChoice(String provider, String model, String displayName, boolean supportsReasoningEffort) {
    public String value() { return provider + "/" + model; }
}
