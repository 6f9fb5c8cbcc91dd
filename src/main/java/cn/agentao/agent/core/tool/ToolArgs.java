package cn.agentao.agent.core.tool;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.JsonTreeParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Tool arguments checked against the tool's own JSON Schema (top level: unknown and missing arguments,
 * types, integer bounds, string enums), so the schema the model sees is the single source of truth.
 */
public final class ToolArgs {
    private ToolArgs() {}

    /** Parses a schema written as JSON text (at class initialisation of every built-in tool: without the mapper). */
    public static ObjectNode schema(String json) {
        try {
            return (ObjectNode) JsonTreeParser.parse(json);
        } catch (JsonTreeParser.SyntaxError e) {
            throw new IllegalArgumentException("bad tool schema: " + e.getMessage(), e);
        }
    }

    /** Checks args against the schema; returns them as an object. */
    public static ObjectNode check(String tool, JsonNode args, ObjectNode schema) throws ToolException {
        if (args == null || args.isNull()) args = Json.object();
        if (!args.isObject()) throw new ToolException(tool + ": arguments must be a JSON object");
        JsonNode props = schema.path("properties");
        for (Map.Entry<String, JsonNode> e : args.properties()) {
            if (!props.has(e.getKey())) {
                List<String> known = new ArrayList<>();
                props.fieldNames().forEachRemaining(known::add);
                throw new ToolException(tool + ": unknown argument '" + e.getKey() + "' (expected: "
                        + String.join(", ", known) + ")");
            }
        }
        for (JsonNode r : schema.path("required")) {
            JsonNode v = args.get(r.asText());
            if (v == null || v.isNull()) throw new ToolException(tool + ": missing required argument '" + r.asText() + "'");
        }
        for (Map.Entry<String, JsonNode> e : props.properties()) {
            JsonNode v = args.get(e.getKey());
            if (v == null || v.isNull()) continue;
            checkValue(tool, e.getKey(), v, e.getValue());
        }
        return (ObjectNode) args;
    }

    private static void checkValue(String tool, String name, JsonNode v, JsonNode prop) throws ToolException {
        String type = prop.path("type").asText("");
        boolean ok = switch (type) {
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber() || (v.isNumber() && v.asDouble() == Math.rint(v.asDouble()));
            case "boolean" -> v.isBoolean();
            case "array" -> v.isArray();
            case "object" -> v.isObject();
            default -> true;
        };
        if (!ok) throw new ToolException(tool + ": argument '" + name + "' must be " + article(type) + " " + type);
        if (type.equals("integer")) {
            long n = v.asLong();
            if (prop.has("minimum") && n < prop.get("minimum").asLong()) {
                throw new ToolException(tool + ": argument '" + name + "' must be at least " + prop.get("minimum").asLong());
            }
            if (prop.has("maximum") && n > prop.get("maximum").asLong()) {
                throw new ToolException(tool + ": argument '" + name + "' must be at most " + prop.get("maximum").asLong());
            }
        }
        if (type.equals("string") && prop.has("enum")) {
            for (JsonNode option : prop.get("enum")) if (option.asText().equals(v.asText())) return;
            throw new ToolException(tool + ": argument '" + name + "' must be one of " + prop.get("enum"));
        }
    }

    private static String article(String type) {
        return type.startsWith("a") || type.startsWith("i") || type.startsWith("o") ? "an" : "a";
    }

    public static String string(JsonNode args, String name) {
        JsonNode v = args.get(name);
        return v == null || v.isNull() ? null : v.asText();
    }

    public static Integer integer(JsonNode args, String name) {
        JsonNode v = args.get(name);
        return v == null || v.isNull() ? null : v.asInt();
    }

    public static boolean bool(JsonNode args, String name, boolean fallback) {
        JsonNode v = args.get(name);
        return v == null || v.isNull() ? fallback : v.asBoolean();
    }
}
