package cn.agentao.agent.core.record;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.ChatMessage;

import java.util.List;

/**
 * What the engine keeps of a session, one record per thing that happened: the engine's own format, whatever
 * front door (ACP, terminal, A2A) the session is used through. {@link EngineRecords} reads and writes them as
 * the repository's {@code (type, payload)}; {@code docs/session-format.md} documents each shape (the same
 * JSON the agent has always written, so old sessions load as they are).
 */
public sealed interface EngineRecord {
    /** The record type in the log ({@link RecordTypes}). */
    String type();

    /** The user's prompt; {@code local}: a command the agent answered itself (shown, not sent to the model). */
    record UserMessage(List<ContentBlock> content, boolean local) implements EngineRecord {
        public UserMessage { content = List.copyOf(content); }
        public String type() { return RecordTypes.USER_MESSAGE; }
    }

    /** Text the agent said itself (a command's answer, an error, a reply cut short by a failed model call). */
    record AgentText(ContentBlock content) implements EngineRecord {
        public String type() { return RecordTypes.AGENT_CHUNK; }
    }

    /** Reasoning that streamed before a model call failed. */
    record Thought(ContentBlock content) implements EngineRecord {
        public String type() { return RecordTypes.THOUGHT_CHUNK; }
    }

    /** One message of the model history (the model's replies are the agent's answers and reasoning). */
    record ModelMessage(ChatMessage message) implements EngineRecord {
        public String type() { return RecordTypes.MODEL_MESSAGE; }
    }

    /** The model history was summarised: {@code messages} replace every earlier model message. */
    record Compaction(List<ChatMessage> messages) implements EngineRecord {
        public Compaction { messages = List.copyOf(messages); }
        public String type() { return RecordTypes.COMPACTION; }
    }

    /** A tool call started. */
    record ToolCallStarted(String toolCallId, String title, ToolKind kind, ToolCallStatus status,
                           List<ToolCallContent> content, List<ToolCallLocation> locations, JsonNode rawInput)
            implements EngineRecord {
        public String type() { return RecordTypes.TOOL_CALL; }
    }

    /** A tool call changed; only the fields that changed are non-null ({@code content} replaces the whole list). */
    record ToolCallUpdated(String toolCallId, String title, ToolKind kind, ToolCallStatus status,
                           List<ToolCallContent> content, List<ToolCallLocation> locations, JsonNode rawInput,
                           JsonNode rawOutput) implements EngineRecord {
        public String type() { return RecordTypes.TOOL_CALL_UPDATE; }
    }

    /** The agent's plan, replacing the previous one. */
    record Plan(List<PlanEntry> entries) implements EngineRecord {
        public Plan { entries = List.copyOf(entries); }
        public String type() { return RecordTypes.PLAN; }
    }

    /** The session's settings as they are now: what a reopened session starts with (any field may be null). */
    record State(String mode, String permissionMode, String model, String thoughtLevel, JsonNode permissions)
            implements EngineRecord {
        public String type() { return RecordTypes.STATE; }
    }

    /** The session's title, replacing the previous one. */
    record Title(String text) implements EngineRecord {
        public String type() { return RecordTypes.TITLE; }
    }

    /** A prompt turn finished. */
    record TurnEnd(StopReason stopReason) implements EngineRecord {
        public String type() { return RecordTypes.TURN_END; }
    }

    /**
     * One model call's tokens and, when the model has a price in config.json, its cost at that time ({@code cost}
     * and {@code currency} null otherwise).
     */
    record Usage(String model, long input, long output, long cachedInput, Double cost, String currency) implements EngineRecord {
        public String type() { return RecordTypes.USAGE; }
    }

    /** A subagent of the session started ({@code state} "running") or stopped ("idle", with its stop reason). */
    record Subagent(String sessionId, String title, String description, String state, StopReason stopReason) implements EngineRecord {
        public String type() { return RecordTypes.SUBAGENT; }
    }

    /** A record of the subagent {@code sessionId}'s own session, kept in its parent's. */
    record ChildRecord(String sessionId, EngineRecord record) implements EngineRecord {
        public String type() { return RecordTypes.CHILD_RECORD; }
    }

    /** A record type this engine does not know (written by a newer one): kept in the log, ignored on replay. */
    record Unknown(String type, ObjectNode payload) implements EngineRecord {}
}
