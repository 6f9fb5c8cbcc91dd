package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.concurrent.CompletableFuture;

/** The model's free-text question to the user ({@code ask_user}): any non-empty text of the next message answers it. */
final class UserQuestion implements PendingQuestion {
    private final Question question;
    private final CompletableFuture<String> answer = new CompletableFuture<>();

    UserQuestion(Question question) { this.question = question; }

    @Override public CompletableFuture<String> answer() { return answer; }

    @Override
    public String text(String preface) {
        String t = (preface == null ? "" : preface + " ") + question.text();
        return question.options().isEmpty() ? t : t + " (for example: " + String.join(", ", question.options()) + ")";
    }

    @Override
    public ObjectNode data() {
        ObjectNode d = Json.object().put("type", "question").put("question", question.text());
        var options = d.putArray("options");
        question.options().forEach(options::add);
        return d;
    }

    @Override
    public String reply(JsonNode message) {
        String text = A2aMessages.text(message).strip();
        return text.isEmpty() ? null : text;
    }
}
