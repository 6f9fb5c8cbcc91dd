package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An MCP tool's JSON input schema as LangChain4j tool parameters. The top level becomes a
 * {@link JsonObjectSchema} (properties, required, additionalProperties, definitions); each property keeps its
 * full meaning: LangChain4j's typed element where it can say everything the schema says, else the schema as
 * raw JSON (bounds, defaults, formats... are not lost). Top-level keywords a tool's parameters cannot carry
 * ({@code $schema}, {@code title}) are dropped.
 */
public final class McpToolSchemas {
    private McpToolSchemas() {}

    @SuppressWarnings("unchecked")
    public static JsonObjectSchema parameters(Map<String, Object> schema) {
        JsonObjectSchema.Builder b = JsonObjectSchema.builder();
        if (schema == null) return b.build();
        if (schema.get("properties") instanceof Map<?, ?> properties) {
            Map<String, JsonSchemaElement> elements = new LinkedHashMap<>();
            properties.forEach((name, value) -> elements.put(String.valueOf(name), element(value)));
            b.addProperties(elements);
        }
        if (schema.get("required") instanceof List<?> required) {
            List<String> names = new ArrayList<>();
            for (Object r : required) if (r instanceof String s) names.add(s);
            b.required(names);
        }
        if (schema.get("additionalProperties") instanceof Boolean additional) b.additionalProperties(additional);
        Object defs = schema.containsKey("$defs") ? schema.get("$defs") : schema.get("definitions");
        if (defs instanceof Map<?, ?> definitions) {
            Map<String, JsonSchemaElement> elements = new LinkedHashMap<>();
            definitions.forEach((name, value) -> elements.put(String.valueOf(name), element(value)));
            b.definitions(elements);
        }
        return b.build();
    }

    @SuppressWarnings("unchecked")
    private static JsonSchemaElement element(Object schema) {
        if (schema instanceof Map<?, ?> map) {
            try {
                return JsonSchemaElementJsonUtils.fromMap((Map<String, Object>) map);
            } catch (IllegalArgumentException | ClassCastException e) {
                return raw(map);
            }
        }
        return raw(Map.of()); // a boolean schema (true) or junk: accept anything
    }

    private static JsonRawSchema raw(Object schema) {
        try {
            return JsonRawSchema.from(Json.mapper().writeValueAsString(schema));
        } catch (JsonProcessingException e) {
            return JsonRawSchema.from("{}");
        }
    }
}
