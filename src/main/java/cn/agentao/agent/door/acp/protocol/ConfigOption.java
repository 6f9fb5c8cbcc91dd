package cn.agentao.agent.door.acp.protocol;

import java.util.List;

/** A select-type session config option (model picker, mode, thought level). */
public record ConfigOption(String id, String name, String description, String category, String type,
                           String currentValue, List<Choice> options) {

    public static ConfigOption select(String id, String name, String description, String category,
                                      String currentValue, List<Choice> options) {
        return new ConfigOption(id, name, description, category, "select", currentValue, options);
    }

    public record Choice(String value, String name, String description) {}
}
