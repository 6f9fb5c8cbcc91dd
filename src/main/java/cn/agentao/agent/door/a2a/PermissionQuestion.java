package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A permission question the engine asked while a task ran: shown as an {@code input-required} status (the
 * question and options as text and as data), answered by the next message of the task.
 */
final class PermissionQuestion implements PendingQuestion {
    /** Plain words a remote caller may answer with, and the option each means. */
    private static final Map<String, String> WORDS = Map.ofEntries(
            Map.entry("yes", "allow_once"), Map.entry("y", "allow_once"), Map.entry("allow", "allow_once"),
            Map.entry("ok", "allow_once"), Map.entry("always", "allow_always"), Map.entry("no", "reject_once"),
            Map.entry("n", "reject_once"), Map.entry("reject", "reject_once"), Map.entry("deny", "reject_once"),
            Map.entry("never", "reject_always"));

    private final String title;
    private final List<String> optionIds = new ArrayList<>();
    private final ArrayNode options = Json.mapper().createArrayNode();
    private final ObjectNode toolCall = Json.object();
    private final CompletableFuture<String> answer = new CompletableFuture<>();

    PermissionQuestion(ApprovalRequest request) {
        AgentEvent.ToolCallStarted call = request.toolCall();
        this.title = call != null && call.title() != null ? call.title() : "a tool call";
        if (call != null) {
            toolCall.put("toolCallId", call.toolCallId()).put("title", title);
            if (call.kind() != null) toolCall.put("kind", call.kind().wire());
            if (call.rawInput() != null) toolCall.set("rawInput", call.rawInput());
        }
        for (ApprovalOption o : request.options()) {
            optionIds.add(o.optionId());
            options.addObject().put("optionId", o.optionId()).put("name", o.name()).put("kind", o.kind().wire());
        }
    }

    @Override public CompletableFuture<String> answer() { return answer; }

    /** The question as text, naming what each answer does. */
    @Override
    public String text(String preface) {
        StringBuilder sb = new StringBuilder(preface == null ? "" : preface + " ");
        sb.append("Permission needed: ").append(title).append(". Answer ");
        List<String> choices = new ArrayList<>();
        if (optionIds.contains("allow_once")) choices.add("\"yes\" to allow once");
        if (optionIds.contains("allow_always")) choices.add("\"always\" to always allow");
        if (optionIds.contains("reject_once")) choices.add("\"no\" to reject");
        if (optionIds.contains("reject_always")) choices.add("\"never\" to always reject");
        sb.append(String.join(", ", choices)).append(" (or an option id: ").append(String.join(", ", optionIds)).append(").");
        return sb.toString();
    }

    /** The question as data: the tool call and the options with their ids. */
    @Override
    public ObjectNode data() {
        ObjectNode d = Json.object().put("type", "permission");
        d.set("toolCall", toolCall.deepCopy());
        d.set("options", options.deepCopy());
        return d;
    }

    /** The option a reply chooses, or null when it is not an answer (the question is then asked again). */
    @Override
    public String reply(JsonNode message) {
        JsonNode data = A2aMessages.data(message);
        if (data != null && data.path("optionId").isTextual()) {
            String id = data.path("optionId").asText();
            return optionIds.contains(id) ? id : null;
        }
        String text = A2aMessages.text(message).strip().toLowerCase(Locale.ROOT);
        while (text.endsWith(".") || text.endsWith("!")) text = text.substring(0, text.length() - 1).strip();
        if (optionIds.contains(text)) return text;
        String option = WORDS.get(text);
        return option != null && optionIds.contains(option) ? option : null;
    }
}
