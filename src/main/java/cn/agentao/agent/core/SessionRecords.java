package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.store.RecordTypes;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.ChatMessage;

import java.util.List;

/**
 * What a session writes to its journal, one method per record type ({@link RecordTypes} documents the payloads):
 * the one place the engine's record format is produced; {@link SessionReplay} reads it back.
 */
final class SessionRecords {
    private SessionRecords() {}

    /** The user's prompt as it went to the model (it is part of the model history on restore). */
    static void userPrompt(Session s, List<ContentBlock> prompt) {
        userPrompt(s, prompt, false);
    }

    /** {@code local}: a command the agent answered itself; shown on replay, not part of the model history. */
    static void userPrompt(Session s, List<ContentBlock> prompt, boolean local) {
        ObjectNode rec = Json.object();
        rec.set("content", ContentBlock.toTree(prompt));
        if (local) rec.put("local", true);
        s.journal().append(RecordTypes.USER_MESSAGE, rec);
    }

    static void modelMessage(Session s, ChatMessage message) {
        ObjectNode rec = Json.object();
        rec.put("message", ChatMessageJson.toJson(message));
        s.journal().append(RecordTypes.MODEL_MESSAGE, rec);
    }

    static void agentText(Session s, String text) {
        ObjectNode rec = Json.object();
        rec.set("content", ContentBlock.toTree(ContentBlock.text(text)));
        s.journal().append(RecordTypes.AGENT_CHUNK, rec);
    }

    static void thought(Session s, String text) {
        ObjectNode rec = Json.object();
        rec.set("content", ContentBlock.toTree(ContentBlock.text(text)));
        s.journal().append(RecordTypes.THOUGHT_CHUNK, rec);
    }

    static void title(Session s, String title) {
        s.journal().append(RecordTypes.TITLE, Json.object().put("text", title));
    }

    static void toolCall(Session s, AgentEvent.ToolCallStarted call) {
        s.journal().append(RecordTypes.TOOL_CALL, Json.MAPPER.valueToTree(call));
    }

    static void toolCallUpdate(Session s, AgentEvent.ToolCallUpdated update) {
        s.journal().append(RecordTypes.TOOL_CALL_UPDATE, Json.MAPPER.valueToTree(update));
    }

    static void plan(Session s, List<PlanEntry> entries) {
        ObjectNode rec = Json.object();
        rec.set("entries", Json.MAPPER.valueToTree(entries));
        s.journal().append(RecordTypes.PLAN, rec);
    }

    static void compaction(Session s, List<ChatMessage> replacement) {
        ObjectNode rec = Json.object();
        rec.set("messages", Json.MAPPER.valueToTree(replacement.stream().map(ChatMessageJson::toJson).toList()));
        s.journal().append(RecordTypes.COMPACTION, rec);
    }

    /** The settings snapshot a load restores: model, mode, thought level, remembered permissions. */
    static void state(Session s) {
        ObjectNode rec = Json.object().put("mode", s.modeId()).put("permissionMode", s.permissionMode().id())
                .put("model", s.model());
        if (s.thoughtLevel() != null) rec.put("thoughtLevel", s.thoughtLevel());
        rec.set("permissions", s.permissions().toJson());
        s.journal().append(RecordTypes.STATE, rec);
    }

    static void turnEnd(Session s, StopReason reason) {
        s.journal().append(RecordTypes.TURN_END, Json.object().put("stopReason", reason.wire()));
    }
}
