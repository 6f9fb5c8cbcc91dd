package cn.agentao.agent.door.acp;

import cn.agentao.agent.tools.UserQuestions;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;

/**
 * Asks through the vendor extension {@code _agentao.cn/ask_user {sessionId, question, options?}}, answered
 * with {@code {outcome:"answered", text}} or {@code {outcome:"cancelled"}}. Anything but an answer (cancelled,
 * an error, empty text) is "no answer".
 */
public final class ClientUserQuestions implements UserQuestions {
    private static final Logger log = LoggerFactory.getLogger(ClientUserQuestions.class);
    public static final String METHOD = "_agentao.cn/ask_user";

    private final ClientRequests client;
    private final String sessionId;

    public ClientUserQuestions(ClientRequests client, String sessionId) {
        this.client = client;
        this.sessionId = sessionId;
    }

    @Override
    public Optional<String> ask(String question, List<String> options) throws InterruptedException {
        ObjectNode params = Json.object().put("sessionId", sessionId).put("question", question);
        if (options != null && !options.isEmpty()) {
            ArrayNode list = params.putArray("options");
            options.forEach(list::add);
            params.put("allowCustom", true);
        }
        try {
            JsonNode answer = client.request(METHOD, params);
            if (answer != null && "answered".equals(answer.path("outcome").asText())
                    && answer.path("text").isTextual() && !answer.get("text").asText().isBlank()) {
                return Optional.of(answer.get("text").asText());
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
