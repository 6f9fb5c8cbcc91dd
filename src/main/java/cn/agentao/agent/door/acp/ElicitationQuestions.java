package cn.agentao.agent.door.acp;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * Asks through ACP elicitation in form mode ({@code elicitation/create}): one required free-text field, the
 * suggested answers named in its description; {@code accept} with a non-blank answer is an answer.
 */
public final class ElicitationQuestions extends ClientQuestion {
    public static final String METHOD = "elicitation/create";
    static final String FIELD = "answer";

    public ElicitationQuestions(ClientRequests client, String sessionId) {
        super(client, METHOD, sessionId);
    }

    @Override
    ObjectNode params(String question, List<String> options) {
        ObjectNode params = Json.object().put("sessionId", sessionId).put("mode", "form").put("message", question);
        ObjectNode schema = params.putObject("requestedSchema").put("type", "object");
        ObjectNode field = schema.putObject("properties").putObject(FIELD).put("type", "string").put("title", "Answer");
        if (options != null && !options.isEmpty()) field.put("description", "Suggestions: " + String.join(" / ", options));
        schema.putArray("required").add(FIELD);
        return params;
    }

    @Override
    JsonNode answerText(JsonNode answer) {
        return "accept".equals(answer.path("action").asText()) ? answer.path("content").get(FIELD) : null;
    }
}
