package cn.agentao.agent.model;

import java.util.List;

/**
 * One selectable model: the value {@code provider/model} (split on the first {@code /}, so
 * {@code openrouter/anthropic/claude-sonnet-4} is provider {@code openrouter}), a display name, and the
 * reasoning efforts it accepts (empty when it takes none).
 */
public record ModelChoice(String providerId, String model, String displayName, List<String> reasoningEfforts) {

    public ModelChoice {
        reasoningEfforts = List.copyOf(reasoningEfforts);
    }

    public String value() {
        return providerId + "/" + model;
    }

    public boolean supportsReasoningEffort() {
        return !reasoningEfforts.isEmpty();
    }
}
