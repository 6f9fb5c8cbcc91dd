package cn.agentao.agent.core.tool;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A tool's JSON input schema as LangChain4j's object schema, for the model's tool list. */
public final class ToolSchemas {
    private ToolSchemas() {}

    public static JsonObjectSchema objectSchema(JsonNode schema) {
        if (schema == null || !schema.isObject()) return JsonObjectSchema.builder().build();
        Map<String, Object> map = plainObject(schema);
        map.putIfAbsent("type", "object");
        try {
            JsonSchemaElement element = JsonSchemaElementJsonUtils.fromMap(map);
            return element instanceof JsonObjectSchema o ? o : JsonObjectSchema.builder().build();
        } catch (IllegalArgumentException e) {
            return JsonObjectSchema.builder().build(); // a malformed schema: the model may still call it with any object
        }
    }

    /**
     * The schema as plain maps, lists and values, as {@code convertValue(schema, Map.class)} gives them (same types:
     * Integer, Long, BigInteger, Double, BigDecimal), walked by hand: Jackson's untyped deserializer cost the first
     * tool list of a fresh agent a few milliseconds to set up, on the way to the first prompt's request.
     */
    static Map<String, Object> plainObject(JsonNode object) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : object.properties()) map.put(field.getKey(), plain(field.getValue()));
        return map;
    }

    private static Object plain(JsonNode node) {
        if (node.isObject()) return plainObject(node);
        if (node.isArray()) {
            List<Object> list = new ArrayList<>(node.size());
            for (JsonNode item : node) list.add(plain(item));
            return list;
        }
        if (node.isTextual()) return node.textValue();
        if (node.isBoolean()) return node.booleanValue();
        if (node.isNull() || node.isMissingNode()) return null;
        if (node.isNumber()) return node.numberValue();
        return Json.mapper().convertValue(node, Object.class); // binary or POJO nodes: not in a parsed schema
    }
}
