package cn.agentao.agent.door.acp.protocol;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/** A select-type session config option (model picker, mode, thought level). */
public record ConfigOption(String id, String name, String description, String category, String type,
                           String currentValue, List<Choice> options) {

    public static ConfigOption select(String id, String name, String description, String category,
                                      String currentValue, List<Choice> options) {
        return new ConfigOption(id, name, description, category, "select", currentValue, options);
    }

    public record Choice(String value, String name, String description) {}

    /** The options as the tree the mapper would make of them (absent fields left out), built without the mapper. */
    public static ArrayNode toTree(List<ConfigOption> options) {
        ArrayNode all = Json.array();
        for (ConfigOption o : options) {
            ObjectNode n = all.addObject();
            Json.putIfPresent(n, "id", o.id);
            Json.putIfPresent(n, "name", o.name);
            Json.putIfPresent(n, "description", o.description);
            Json.putIfPresent(n, "category", o.category);
            Json.putIfPresent(n, "type", o.type);
            Json.putIfPresent(n, "currentValue", o.currentValue);
            if (o.options != null) {
                ArrayNode choices = n.putArray("options");
                for (Choice c : o.options) {
                    ObjectNode cn = choices.addObject();
                    Json.putIfPresent(cn, "value", c.value);
                    Json.putIfPresent(cn, "name", c.name);
                    Json.putIfPresent(cn, "description", c.description);
                }
            }
        }
        return all;
    }
}
