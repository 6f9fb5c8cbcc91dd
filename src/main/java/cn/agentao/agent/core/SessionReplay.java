package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.store.RecordTypes;
import cn.agentao.agent.store.StoredSession;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.ChatMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rebuilds a saved session from its records: the model history, the settings, and the updates that show the
 * conversation again as events (user and agent text, thoughts, each tool call once with its final state, the last plan).
 */
public final class SessionReplay {
    private static final Logger log = LoggerFactory.getLogger(SessionReplay.class);

    /** What a load restores. {@code state} is the latest settings snapshot (null if none was written). */
    public record Restored(List<ChatMessage> history, ObjectNode state, String title, List<AgentEvent> events) {}

    private SessionReplay() {}

    public static Restored restore(StoredSession stored) {
        List<ChatMessage> history = new ArrayList<>();
        ObjectNode state = null;
        String title = null;
        List<PlanEntry> plan = null;
        Map<String, ObjectNode> toolCalls = new LinkedHashMap<>();
        for (ObjectNode r : stored.records()) {
            String type = r.path("type").asText();
            if (type.equals(RecordTypes.TOOL_CALL)) {
                toolCalls.put(r.path("toolCallId").asText(), r.deepCopy());
            } else if (type.equals(RecordTypes.TOOL_CALL_UPDATE)) {
                ObjectNode call = toolCalls.get(r.path("toolCallId").asText());
                if (call != null) r.fields().forEachRemaining(f -> {
                    if (!List.of("type", "seq", "ts").contains(f.getKey()) && !f.getValue().isNull()) call.set(f.getKey(), f.getValue());
                });
            }
        }
        List<AgentEvent> updates = new ArrayList<>();
        for (ObjectNode r : stored.records()) {
            try {
                switch (r.path("type").asText()) {
                    case RecordTypes.USER_MESSAGE -> {
                        List<ContentBlock> blocks = new ArrayList<>();
                        for (JsonNode b : r.path("content")) blocks.add(block(b));
                        blocks.forEach(b -> updates.add(new AgentEvent.UserMessage(b)));
                        if (!r.path("local").asBoolean(false)) history.add(TurnRunner.userMessage(blocks));
                    }
                    case RecordTypes.AGENT_CHUNK -> updates.add(new AgentEvent.MessageChunk(block(r.path("content"))));
                    case RecordTypes.THOUGHT_CHUNK -> updates.add(new AgentEvent.ThoughtChunk(block(r.path("content"))));
                    case RecordTypes.MODEL_MESSAGE -> {
                        ChatMessage m = ChatMessageJson.fromJson(r.path("message").asText());
                        history.add(m);
                        if (m instanceof AiMessage ai) {
                            if (ai.thinking() != null && !ai.thinking().isEmpty()) updates.add(AgentEvent.ThoughtChunk.text(ai.thinking()));
                            if (ai.text() != null && !ai.text().isEmpty()) updates.add(AgentEvent.MessageChunk.text(ai.text()));
                        }
                    }
                    case RecordTypes.COMPACTION -> {
                        history.clear();
                        for (JsonNode m : r.path("messages")) history.add(ChatMessageJson.fromJson(m.asText()));
                    }
                    case RecordTypes.TOOL_CALL -> updates.add(finalToolCall(toolCalls.get(r.path("toolCallId").asText())));
                    case RecordTypes.PLAN -> plan = Json.MAPPER.convertValue(r.path("entries"), new TypeReference<List<PlanEntry>>() {});
                    case RecordTypes.STATE -> state = r;
                    case RecordTypes.TITLE -> title = r.path("text").textValue();
                    default -> { /* turn_end and unknown record types show nothing */ }
                }
            } catch (RuntimeException e) {
                log.warn("session {}: skipping unreadable record {} ({})", stored.sessionId(), r.path("seq").asLong(), e.toString());
            }
        }
        if (plan != null) updates.add(new AgentEvent.PlanChanged(plan));
        return new Restored(repair(history), state, title, updates);
    }

    /**
     * A process killed during a tool call leaves a model message whose tool calls have no results; providers
     * refuse such a history, so each missing result is filled in as "not run".
     */
    static List<ChatMessage> repair(List<ChatMessage> history) {
        List<ChatMessage> out = new ArrayList<>();
        List<ToolExecutionRequest> open = new ArrayList<>();
        for (ChatMessage m : history) {
            if (m instanceof ToolExecutionResultMessage t) {
                open.removeIf(r -> r.id() != null && r.id().equals(t.id()));
                out.add(m);
                continue;
            }
            closeOpen(out, open);
            out.add(m);
            if (m instanceof AiMessage ai && ai.hasToolExecutionRequests()) open.addAll(ai.toolExecutionRequests());
        }
        closeOpen(out, open);
        return out;
    }

    private static void closeOpen(List<ChatMessage> out, List<ToolExecutionRequest> open) {
        for (ToolExecutionRequest r : open) out.add(ToolExecutionResultMessage.from(r, "Not run: the agent stopped before this tool finished."));
        open.clear();
    }

    private static ContentBlock block(JsonNode b) {
        // sessions saved before user blocks kept their "type" hold bare {"text": …}
        if (!b.has("type") && b.path("text").isTextual()) return ContentBlock.text(b.path("text").textValue());
        return Json.MAPPER.convertValue(b, ContentBlock.class);
    }

    /** The tool call as it ended; one left running when the process died shows as failed. */
    private static AgentEvent.ToolCallStarted finalToolCall(ObjectNode merged) {
        ObjectNode c = merged.deepCopy();
        String status = c.path("status").asText("pending");
        if (!status.equals("completed") && !status.equals("failed")) c.put("status", ToolCallStatus.FAILED.wire());
        c.remove(List.of("type", "seq", "ts", "sessionUpdate"));
        return Json.MAPPER.convertValue(c, AgentEvent.ToolCallStarted.class);
    }
}
