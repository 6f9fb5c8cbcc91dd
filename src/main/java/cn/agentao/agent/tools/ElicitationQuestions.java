package cn.agentao.agent.tools;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;

/**
 * Asks through ACP elicitation in form mode ({@code elicitation/create}): one required free-text field, the
 * suggested answers named in its description. {@code accept} with a non-blank answer is an answer; decline,
 * cancel, an error or an empty answer are "no answer". Cancelling the turn withdraws the request
 * ({@code $/cancel_request}), as for every client request of a turn.
 */
public final class ElicitationQuestions implements UserQuestions {
    private static final Logger log = LoggerFactory.getLogger(ElicitationQuestions.class);
    public static final String METHOD = "elicitation/create";
    static final String FIELD = "answer";

    private final ClientRequests client;
    private final String sessionId;

    public ElicitationQuestions(ClientRequests client, String sessionId) {
        this.client = client;
        this.sessionId = sessionId;
    }

    @Override
    public Optional<String> ask(String question, List<String> options) throws InterruptedException {
        ObjectNode params = Json.object().put("sessionId", sessionId).put("mode", "form").put("message", question);
        ObjectNode schema = params.putObject("requestedSchema").put("type", "object");
        ObjectNode field = schema.putObject("properties").putObject(FIELD).put("type", "string").put("title", "Answer");
        if (options != null && !options.isEmpty()) field.put("description", "Suggestions: " + String.join(" / ", options));
        schema.putArray("required").add(FIELD);
        try {
            JsonNode answer = client.request(METHOD, params);
            JsonNode text = answer == null ? null : answer.path("content").get(FIELD);
            if ("accept".equals(answer == null ? null : answer.path("action").asText()) && text != null && text.isTextual()
                    && !text.asText().isBlank()) {
                return Optional.of(text.asText());
            }
            return Optional.empty();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            log.warn("{} failed: {}", METHOD, e.toString());
            return Optional.empty();
        }
    }
}
