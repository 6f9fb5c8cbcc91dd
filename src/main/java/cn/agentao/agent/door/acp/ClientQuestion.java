package cn.agentao.agent.door.acp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import cn.agentao.agent.core.tool.UserQuestions;

import java.util.List;
import java.util.Optional;

/**
 * A question asked through one client request: {@link ElicitationQuestions} (ACP) or {@link ClientUserQuestions}
 * (Agentao's extension). Anything but a non-blank answer (declined, cancelled, an error) is "no answer"; a
 * cancelled turn withdraws the request.
 */
abstract class ClientQuestion implements UserQuestions {
    private static final Logger log = LoggerFactory.getLogger(ClientQuestion.class);

    private final ClientRequests client;
    private final String method;
    final String sessionId;

    ClientQuestion(ClientRequests client, String method, String sessionId) {
        this.client = client;
        this.method = method;
        this.sessionId = sessionId;
    }

    abstract ObjectNode params(String question, List<String> options);

    /** The answer's text, or null when the client's answer is not one. */
    abstract JsonNode answerText(JsonNode answer);

    @Override
    public final Optional<String> ask(String question, List<String> options) throws InterruptedException {
        try {
            JsonNode answer = client.request(method, params(question, options));
            JsonNode text = answer == null ? null : answerText(answer);
            return text != null && text.isTextual() && !text.asText().isBlank() ? Optional.of(text.asText()) : Optional.empty();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            log.warn("{} failed: {}", method, e.toString());
            return Optional.empty();
        }
    }
}
