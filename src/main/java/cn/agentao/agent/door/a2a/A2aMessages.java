package cn.agentao.agent.door.a2a;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.UUID;

/** A2A 0.3 {@code Message} objects (kind "message"), built and read as JSON trees. */
final class A2aMessages {
    private A2aMessages() {}

    /** An agent message with one text part and, when given, one data part. */
    static ObjectNode agent(String taskId, String contextId, String text, JsonNode data) {
        ObjectNode m = Json.object().put("kind", "message").put("messageId", UUID.randomUUID().toString()).put("role", "agent");
        var parts = m.putArray("parts");
        parts.addObject().put("kind", "text").put("text", text);
        if (data != null) parts.addObject().put("kind", "data").set("data", data);
        m.put("taskId", taskId).put("contextId", contextId);
        return m;
    }

    /** The text parts of a message joined by newlines ("" when it has none). */
    static String text(JsonNode message) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode p : message.path("parts")) {
            if ("text".equals(p.path("kind").asText()) && p.path("text").isTextual()) {
                if (!sb.isEmpty()) sb.append('\n');
                sb.append(p.path("text").asText());
            }
        }
        return sb.toString();
    }

    /** The first data part's object, or null. */
    static JsonNode data(JsonNode message) {
        for (JsonNode p : message.path("parts")) {
            if ("data".equals(p.path("kind").asText()) && p.path("data").isObject()) return p.path("data");
        }
        return null;
    }

    static ObjectNode status(String state, ObjectNode message) {
        ObjectNode s = Json.object().put("state", state);
        if (message != null) s.set("message", message);
        s.put("timestamp", Instant.now().toString());
        return s;
    }
}
