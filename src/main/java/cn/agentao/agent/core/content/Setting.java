package cn.agentao.agent.core.content;

import java.util.List;

/**
 * One choice-type setting of a session (mode, model, thought level): what it is, its current value and the
 * values it may take. {@link cn.agentao.agent.core.Session#set(String, String)} changes it.
 */
public record Setting(String id, String name, String description, String category, String currentValue,
                      List<Choice> choices) {
    public static final String MODE = "mode";
    public static final String MODEL = "model";
    public static final String THOUGHT_LEVEL = "thought_level";

    public record Choice(String value, String name, String description) {}
}
