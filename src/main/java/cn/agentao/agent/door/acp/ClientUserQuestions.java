package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.tool.UserQuestions;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * Asks through the vendor extension {@code _agentao.cn/ask_user {sessionId, question, options?}}, answered
 * with {@code {outcome:"answered", text}} or {@code {outcome:"cancelled"}}.
 */
public final class ClientUserQuestions extends ClientQuestion {
    public static final String METHOD = "_agentao.cn/ask_user";

    public ClientUserQuestions(ClientRequests client, String sessionId) {
        super(client, METHOD, sessionId);
    }

    @Override
    ObjectNode params(String question, List<String> options) {
        ObjectNode params = Json.object().put("sessionId", sessionId).put("question", question);
        if (options != null && !options.isEmpty()) {
            ArrayNode list = params.putArray("options");
            options.forEach(list::add);
            params.put("allowCustom", true);
        }
        return params;
    }

    @Override
    JsonNode answerText(JsonNode answer) {
        return "answered".equals(answer.path("outcome").asText()) ? answer.get("text") : null;
    }
}
