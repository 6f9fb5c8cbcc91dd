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
        @JsonSubTypes.Type(SessionUpdate.UsageUpdate.class)
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

    /** {@code input} is {hint} when the command takes free text after its name. */
    record AvailableCommand(String name, String description, CommandInput input) {}

    record CommandInput(String hint) {}
}
