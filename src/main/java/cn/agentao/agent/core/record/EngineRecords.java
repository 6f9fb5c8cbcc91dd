package cn.agentao.agent.core.record;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.ChatMessage;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link EngineRecord}s as the repository keeps them: a type and a JSON payload. Writing gives the shapes
 * documented in {@code docs/session-format.md}; reading also accepts what older agents wrote (user blocks
 * without a {@code type}, model messages as objects rather than strings).
 */
public final class EngineRecords {
    /** The fields the repository adds to every record; not part of a payload. */
    private static final List<String> ENVELOPE = List.of("seq", "ts", "type");

    private EngineRecords() {}

    /** The record's payload (its fields besides {@code seq}, {@code ts} and {@code type}). */
    public static ObjectNode payload(EngineRecord record) {
        ObjectNode p = Json.object();
        switch (record) {
            case EngineRecord.UserMessage u -> {
                p.set("content", ContentBlock.toTree(u.content()));
                if (u.local()) p.put("local", true);
            }
            case EngineRecord.AgentText a -> p.set("content", ContentBlock.toTree(a.content()));
            case EngineRecord.Thought t -> p.set("content", ContentBlock.toTree(t.content()));
            case EngineRecord.ModelMessage m -> p.put("message", ChatMessageJson.toJson(m.message()));
            case EngineRecord.Compaction c -> {
                ArrayNode messages = p.putArray("messages");
                c.messages().forEach(m -> messages.add(ChatMessageJson.toJson(m)));
            }
            case EngineRecord.ToolCallStarted s -> p.setAll(fields(s));
            case EngineRecord.ToolCallUpdated u -> p.setAll(fields(u));
            case EngineRecord.Plan plan -> p.set("entries", Json.mapper().valueToTree(plan.entries()));
            case EngineRecord.State s -> p.setAll(fields(s));
            case EngineRecord.Title t -> p.put("text", t.text());
            case EngineRecord.TurnEnd e -> p.put("stopReason", e.stopReason().wire());
            case EngineRecord.Usage u -> {
                p.put("model", u.model()).put("input", u.input()).put("output", u.output()).put("cachedInput", u.cachedInput());
                if (u.cost() != null && u.currency() != null) p.put("cost", u.cost()).put("currency", u.currency());
            }
            case EngineRecord.Subagent a -> {
                p.put("sessionId", a.sessionId()).put("title", a.title()).put("description", a.description()).put("state", a.state());
                if (a.stopReason() != null) p.put("stopReason", a.stopReason().wire());
            }
            case EngineRecord.ChildRecord c -> {
                p.put("sessionId", c.sessionId());
                p.putObject("record").put("type", c.record().type()).setAll(payload(c.record()));
            }
            case EngineRecord.Unknown u -> p.setAll(u.payload());
        }
        return p;
    }

    /**
     * The engine record a stored record holds (the whole line: {@code seq}, {@code ts}, {@code type}, payload).
     * A type this engine does not know gives {@link EngineRecord.Unknown}.
     *
     * @throws IllegalArgumentException if a known type's payload cannot be read
     */
    public static EngineRecord read(ObjectNode line) {
        String type = line.path("type").asText();
        return switch (type) {
            case RecordTypes.USER_MESSAGE -> new EngineRecord.UserMessage(blocks(line.path("content")), line.path("local").asBoolean(false));
            case RecordTypes.AGENT_CHUNK -> new EngineRecord.AgentText(block(line.path("content")));
            case RecordTypes.THOUGHT_CHUNK -> new EngineRecord.Thought(block(line.path("content")));
            case RecordTypes.MODEL_MESSAGE -> new EngineRecord.ModelMessage(message(line.path("message")));
            case RecordTypes.COMPACTION -> {
                List<ChatMessage> messages = new ArrayList<>();
                for (JsonNode m : line.path("messages")) messages.add(message(m));
                yield new EngineRecord.Compaction(messages);
            }
            case RecordTypes.TOOL_CALL -> Json.mapper().convertValue(payloadOf(line), EngineRecord.ToolCallStarted.class);
            case RecordTypes.TOOL_CALL_UPDATE -> Json.mapper().convertValue(payloadOf(line), EngineRecord.ToolCallUpdated.class);
            case RecordTypes.PLAN -> new EngineRecord.Plan(Json.mapper().convertValue(line.path("entries"), new TypeReference<List<PlanEntry>>() {}));
            case RecordTypes.STATE -> new EngineRecord.State(text(line, "mode"), text(line, "permissionMode"),
                    text(line, "model"), text(line, "thoughtLevel"), line.get("permissions"));
            case RecordTypes.TITLE -> new EngineRecord.Title(line.path("text").textValue());
            case RecordTypes.TURN_END -> new EngineRecord.TurnEnd(stopReason(line.path("stopReason").asText()));
            case RecordTypes.USAGE -> new EngineRecord.Usage(text(line, "model"), line.path("input").asLong(),
                    line.path("output").asLong(), line.path("cachedInput").asLong(),
                    line.path("cost").isNumber() ? line.path("cost").asDouble() : null, text(line, "currency"));
            case RecordTypes.SUBAGENT -> new EngineRecord.Subagent(text(line, "sessionId"), text(line, "title"), text(line, "description"),
                    text(line, "state"), line.hasNonNull("stopReason") ? stopReason(line.path("stopReason").asText()) : null);
            case RecordTypes.CHILD_RECORD -> {
                if (!(line.get("record") instanceof ObjectNode inner) || text(line, "sessionId") == null) {
                    throw new IllegalArgumentException("a child_record needs a sessionId and a record");
                }
                yield new EngineRecord.ChildRecord(text(line, "sessionId"), read(inner));
            }
            default -> new EngineRecord.Unknown(type, payloadOf(line));
        };
    }

    private static ObjectNode fields(EngineRecord record) {
        ObjectNode tree = Json.mapper().valueToTree(record);
        tree.remove(ENVELOPE);
        return tree;
    }

    private static ObjectNode payloadOf(ObjectNode line) {
        ObjectNode p = line.deepCopy();
        p.remove(ENVELOPE);
        return p;
    }

    private static String text(ObjectNode line, String field) {
        JsonNode v = line.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static List<ContentBlock> blocks(JsonNode array) {
        List<ContentBlock> blocks = new ArrayList<>();
        for (JsonNode b : array) blocks.add(block(b));
        return blocks;
    }

    private static ContentBlock block(JsonNode b) {
        // sessions saved before user blocks kept their "type" hold bare {"text": …}
        if (!b.has("type") && b.path("text").isTextual()) return ContentBlock.text(b.path("text").textValue());
        return Json.mapper().convertValue(b, ContentBlock.class);
    }

    /** A model message: a JSON string in LangChain4j's format (older logs: the object itself). */
    private static ChatMessage message(JsonNode m) {
        return ChatMessageJson.fromJson(m.isTextual() ? m.textValue() : m.toString());
    }

    private static StopReason stopReason(String wire) {
        for (StopReason r : StopReason.values()) if (r.wire().equals(wire)) return r;
        return StopReason.END_TURN; // a reason this engine does not know: the turn ended all the same
    }
}
