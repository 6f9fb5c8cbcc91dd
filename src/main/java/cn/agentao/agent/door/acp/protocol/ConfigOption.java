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
            putIfPresent(n, "id", o.id);
            putIfPresent(n, "name", o.name);
            putIfPresent(n, "description", o.description);
            putIfPresent(n, "category", o.category);
            putIfPresent(n, "type", o.type);
            putIfPresent(n, "currentValue", o.currentValue);
            if (o.options != null) {
                ArrayNode choices = n.putArray("options");
                for (Choice c : o.options) {
                    ObjectNode cn = choices.addObject();
                    putIfPresent(cn, "value", c.value);
                    putIfPresent(cn, "name", c.name);
                    putIfPresent(cn, "description", c.description);
                }
            }
        }
        return all;
    }

    static void putIfPresent(ObjectNode n, String field, String value) {
        if (value != null) n.put(field, value);
    }
}
