package cn.agentao.agent.core.event;

import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.Setting;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * What a session tells its front door while it lives: streamed text, tool calls, plans, settings. Every door
 * renders these its own way (ACP: one {@code session/update} each); the core never speaks a protocol. Field
 * names follow the shared content vocabulary, so a record serialises to the same JSON the session record uses.
 */
public sealed interface AgentEvent {

    /** A piece of the agent's answer (text deltas of one answer arrive in order). */
    record MessageChunk(ContentBlock content) implements AgentEvent {
        public static MessageChunk text(String t) { return new MessageChunk(ContentBlock.text(t)); }
    }

    /** A piece of the model's reasoning. */
    record ThoughtChunk(ContentBlock content) implements AgentEvent {
        public static ThoughtChunk text(String t) { return new ThoughtChunk(ContentBlock.text(t)); }
    }

    /** A block of an earlier user prompt, sent only when a saved conversation is replayed. */
    record UserMessage(ContentBlock content) implements AgentEvent {}

    /** A tool call the model asked for, shown before it is judged or run (status pending). */
    record ToolCallStarted(String toolCallId, String title, ToolKind kind, ToolCallStatus status,
                           List<ToolCallContent> content, List<ToolCallLocation> locations,
                           JsonNode rawInput, JsonNode rawOutput) implements AgentEvent {}

    /** A tool call changed: only the non-null fields changed; {@code content} replaces the whole list. */
    record ToolCallUpdated(String toolCallId, String title, ToolKind kind, ToolCallStatus status,
                           List<ToolCallContent> content, List<ToolCallLocation> locations,
                           JsonNode rawInput, JsonNode rawOutput) implements AgentEvent {
        public static ToolCallUpdated status(String id, ToolCallStatus status) {
            return new ToolCallUpdated(id, null, null, status, null, null, null, null);
        }
    }

    /** The agent's plan, replacing any earlier one. */
    record PlanChanged(List<PlanEntry> entries) implements AgentEvent {}

    /** Context use after a model call: tokens used of the window's size; {@code cost} may be null. */
    record UsageChanged(long used, long size, Cost cost) implements AgentEvent {}

    /** What a turn cost so far, when known. */
    record Cost(double amount, String currency) {}

    /** The session got (or changed) its title; {@code updatedAt} (ISO-8601) may be null. */
    record TitleChanged(String title, String updatedAt) implements AgentEvent {}

    /** The session's mode (permission preset) changed. */
    record ModeChanged(String modeId) implements AgentEvent {}

    /** The session's settings changed (any of them); the whole current list. */
    record SettingsChanged(List<Setting> settings) implements AgentEvent {}

    /** The slash commands the user can run changed; the whole current list. */
    record CommandsChanged(List<AvailableCommand> commands) implements AgentEvent {}

    /** A message for the user outside any answer (a server that failed, a bad config file, saving failed). */
    record Notice(String text) implements AgentEvent {}

    /**
     * A compaction of the model history: {@code in_progress}, then {@code completed} (with the summary), {@code failed}
     * (with the error) or {@code cancelled}; one {@code compactionId} per compaction.
     */
    record CompactionChanged(String compactionId, String status, String summary, String error) implements AgentEvent {}

    /** A piece of the summary a compaction is writing, as it streams. */
    record CompactionChunk(String compactionId, String text) implements AgentEvent {}

    /**
     * A subagent of this session, a child session of its own: announced when it starts ({@code state} "running"),
     * then "idle" with why it stopped ({@code stopReason}, null while running). The door shows it when it shows
     * children as sessions ({@link cn.agentao.agent.core.host.Host#childSession}); others see the task call only.
     */
    record SubagentChanged(String sessionId, String title, String description, String state,
                           cn.agentao.agent.core.content.StopReason stopReason) implements AgentEvent {}

    /** An event of the subagent {@code sessionId}'s own session, as a saved session is replayed to its parent's door. */
    record ChildEvent(String sessionId, AgentEvent event) implements AgentEvent {}
}
