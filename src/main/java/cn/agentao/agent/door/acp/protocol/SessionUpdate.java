package cn.agentao.agent.door.acp.protocol;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/** The {@code update} of a {@code session/update} notification, discriminated by {@code sessionUpdate}. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "sessionUpdate")
@JsonSubTypes({
        @JsonSubTypes.Type(SessionUpdate.UserMessageChunk.class),
        @JsonSubTypes.Type(SessionUpdate.AgentMessageChunk.class),
        @JsonSubTypes.Type(SessionUpdate.AgentThoughtChunk.class),
        @JsonSubTypes.Type(SessionUpdate.ToolCall.class),
        @JsonSubTypes.Type(SessionUpdate.ToolCallUpdate.class),
        @JsonSubTypes.Type(SessionUpdate.Plan.class),
        @JsonSubTypes.Type(SessionUpdate.AvailableCommandsUpdate.class),
        @JsonSubTypes.Type(SessionUpdate.CurrentModeUpdate.class),
        @JsonSubTypes.Type(SessionUpdate.ConfigOptionUpdate.class),
        @JsonSubTypes.Type(SessionUpdate.SessionInfoUpdate.class),
        @JsonSubTypes.Type(SessionUpdate.UsageUpdate.class),
        @JsonSubTypes.Type(SessionUpdate.Notice.class),
        @JsonSubTypes.Type(SessionUpdate.CompactionUpdate.class),
        @JsonSubTypes.Type(SessionUpdate.CompactionSummaryChunk.class),
        @JsonSubTypes.Type(SessionUpdate.SubagentUpdate.class)
})
public sealed interface SessionUpdate {

    @JsonTypeName("user_message_chunk")
    record UserMessageChunk(ContentBlock content) implements SessionUpdate {}

    @JsonTypeName("agent_message_chunk")
    record AgentMessageChunk(ContentBlock content) implements SessionUpdate {
        public static AgentMessageChunk text(String t) { return new AgentMessageChunk(ContentBlock.text(t)); }
    }

    @JsonTypeName("agent_thought_chunk")
    record AgentThoughtChunk(ContentBlock content) implements SessionUpdate {
        public static AgentThoughtChunk text(String t) { return new AgentThoughtChunk(ContentBlock.text(t)); }
    }

    @JsonTypeName("tool_call")
    record ToolCall(String toolCallId, String title, ToolKind kind, ToolCallStatus status,
                    List<ToolCallContent> content, List<ToolCallLocation> locations,
                    JsonNode rawInput, JsonNode rawOutput) implements SessionUpdate {}

    /** Only the fields that changed are non-null; {@code content} replaces the whole collection. */
    @JsonTypeName("tool_call_update")
    record ToolCallUpdate(String toolCallId, String title, ToolKind kind, ToolCallStatus status,
                          List<ToolCallContent> content, List<ToolCallLocation> locations,
                          JsonNode rawInput, JsonNode rawOutput) implements SessionUpdate {
        public static ToolCallUpdate status(String id, ToolCallStatus status) {
            return new ToolCallUpdate(id, null, null, status, null, null, null, null);
        }
    }

    @JsonTypeName("plan")
    record Plan(List<PlanEntry> entries) implements SessionUpdate {}

    @JsonTypeName("available_commands_update")
    record AvailableCommandsUpdate(List<AvailableCommand> availableCommands) implements SessionUpdate {}

    @JsonTypeName("current_mode_update")
    record CurrentModeUpdate(String currentModeId) implements SessionUpdate {}

    @JsonTypeName("config_option_update")
    record ConfigOptionUpdate(List<ConfigOption> configOptions) implements SessionUpdate {}

    @JsonTypeName("session_info_update")
    record SessionInfoUpdate(String title, String updatedAt) implements SessionUpdate {}

    @JsonTypeName("usage_update")
    record UsageUpdate(long used, long size, Cost cost) implements SessionUpdate {}

    record Cost(double amount, String currency) {}

    /** Something for the user outside any answer; only for clients with {@code session.notices}. */
    @JsonTypeName("notice")
    record Notice(String severity, String title, String description) implements SessionUpdate {
        /** A warning whose title is the text's first sentence when the text is long, the rest its description. */
        public static Notice warning(String text) {
            String t = text.strip();
            int end = t.length() > 100 ? t.indexOf(". ") : -1;
            return end > 0 ? new Notice("warning", t.substring(0, end + 1), t.substring(end + 2).strip())
                    : new Notice("warning", t, null);
        }
    }

    /** A compaction of the history, created then patched by id; only for clients with {@code session.compaction}. */
    @JsonTypeName("compaction_update")
    record CompactionUpdate(String compactionId, String status, List<ContentBlock> summary, String error) implements SessionUpdate {}

    /** A piece of a compaction's summary as the model writes it. */
    @JsonTypeName("compaction_summary_chunk")
    record CompactionSummaryChunk(String compactionId, ContentBlock content) implements SessionUpdate {}

    /**
     * A child session (subagent) this session created and owns, announced before any of its own updates, then its
     * state; only for clients with {@code subagents}. No client-side mutation of the child is offered (no
     * {@code capabilities}).
     */
    @JsonTypeName("subagent_update")
    record SubagentUpdate(String sessionId, String title, String description, State state) implements SessionUpdate {
        /** {@code running}, or {@code idle} with why its work stopped. */
        public record State(String state, String stopReason) {}
    }

    /** {@code input} is {hint} when the command takes free text after its name. */
    record AvailableCommand(String name, String description, CommandInput input) {}

    record CommandInput(String hint) {}
}
