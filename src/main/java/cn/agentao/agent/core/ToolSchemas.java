package cn.agentao.agent.core;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;

import java.util.Map;

/** A tool's JSON input schema as LangChain4j's object schema, for the model's tool list. */
public final class ToolSchemas {
    private ToolSchemas() {}

    public static JsonObjectSchema objectSchema(JsonNode schema) {
        if (schema == null || !schema.isObject()) return JsonObjectSchema.builder().build();
        Map<String, Object> map = Json.MAPPER.convertValue(schema, new TypeReference<Map<String, Object>>() {});
        map.putIfAbsent("type", "object");
        try {
            JsonSchemaElement element = JsonSchemaElementJsonUtils.fromMap(map);
            return element instanceof JsonObjectSchema o ? o : JsonObjectSchema.builder().build();
        } catch (IllegalArgumentException e) {
            return JsonObjectSchema.builder().build(); // a malformed schema: the model may still call it with any object
        }
    }
}
