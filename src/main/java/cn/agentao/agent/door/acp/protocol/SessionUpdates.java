package cn.agentao.agent.door.acp.protocol;

import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.Setting;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.util.InertText;

import java.util.Arrays;
import java.util.List;

/**
 * The core's events, settings and modes in ACP's words: one {@code session/update} per event. Public because ACP's update is also the
 * terminal's {@code --output-format stream-json} line: the one mapping both speak. A tool call's title is text an
 * editor shows, often as the question of an approval: it shows every character it holds ({@link InertText#forApproval});
 * the tool's exact input stays in {@code rawInput}.
 */
public final class SessionUpdates {
    private SessionUpdates() {}

    /**
     * The update for {@code event} as this client understands it: notices as {@code notice} updates with
     * {@code session.notices} (else a "⚠" line in the agent's message), compactions only with {@code session.compaction}
     * (null: nothing to send), subagents only with {@code subagents}.
     */
    public static SessionUpdate of(AgentEvent event, ClientCapabilities caps) {
        return switch (event) {
            case AgentEvent.Notice n when caps.notices() -> SessionUpdate.Notice.warning(n.text());
            case AgentEvent.CompactionChanged c -> caps.compactionUpdates() ? new SessionUpdate.CompactionUpdate(c.compactionId(),
                    c.status(), c.summary() == null ? null : List.of(ContentBlock.text(c.summary())), c.error()) : null;
            case AgentEvent.CompactionChunk c -> caps.compactionUpdates()
                    ? new SessionUpdate.CompactionSummaryChunk(c.compactionId(), ContentBlock.text(c.text())) : null;
            case AgentEvent.SubagentChanged s -> caps.subagents() ? new SessionUpdate.SubagentUpdate(s.sessionId(), s.title(),
                    s.description(), new SessionUpdate.SubagentUpdate.State(s.state(), s.stopReason() == null ? null : s.stopReason().wire())) : null;
            default -> of(event);
        };
    }

    /** The update for a client that advertised neither notices nor compaction (null: nothing to send). */
    public static SessionUpdate of(AgentEvent event) {
        return switch (event) {
            case AgentEvent.MessageChunk m -> new SessionUpdate.AgentMessageChunk(m.content());
            case AgentEvent.ThoughtChunk t -> new SessionUpdate.AgentThoughtChunk(t.content());
            case AgentEvent.UserMessage u -> new SessionUpdate.UserMessageChunk(u.content());
            case AgentEvent.ToolCallStarted c -> new SessionUpdate.ToolCall(c.toolCallId(), InertText.forApproval(c.title()), c.kind(), c.status(),
                    c.content(), c.locations(), c.rawInput(), c.rawOutput());
            case AgentEvent.ToolCallUpdated u -> new SessionUpdate.ToolCallUpdate(u.toolCallId(), InertText.forApproval(u.title()), u.kind(), u.status(),
                    u.content(), u.locations(), u.rawInput(), u.rawOutput());
            case AgentEvent.PlanChanged p -> new SessionUpdate.Plan(p.entries());
            case AgentEvent.UsageChanged u -> new SessionUpdate.UsageUpdate(u.used(), u.size(),
                    u.cost() == null ? null : new SessionUpdate.Cost(u.cost().amount(), u.cost().currency()));
            case AgentEvent.TitleChanged t -> new SessionUpdate.SessionInfoUpdate(t.title(), t.updatedAt());
            case AgentEvent.ModeChanged m -> new SessionUpdate.CurrentModeUpdate(m.modeId());
            case AgentEvent.SettingsChanged s -> new SessionUpdate.ConfigOptionUpdate(configOptions(s.settings()));
            case AgentEvent.CommandsChanged c -> new SessionUpdate.AvailableCommandsUpdate(c.commands().stream().map(SessionUpdates::command).toList());
            case AgentEvent.Notice n -> SessionUpdate.AgentMessageChunk.text("⚠ " + n.text() + "\n");
            case AgentEvent.CompactionChanged c -> null;
            case AgentEvent.CompactionChunk c -> null;
            case AgentEvent.SubagentChanged s -> null;
            case AgentEvent.ChildEvent c -> null; // the child's own session's: its door sends it under the child's id
        };
    }

    /** The ACP {@code modes} state: the current mode among all. */
    public static SessionMode.State modes(String currentModeId) {
        List<SessionMode> all = Arrays.stream(Mode.values()).map(m -> new SessionMode(m.id(), m.displayName(), m.description())).toList();
        return new SessionMode.State(currentModeId, all);
    }

    /** Settings as ACP config options (each a select). */
    public static List<ConfigOption> configOptions(List<Setting> settings) {
        return settings.stream().map(s -> ConfigOption.select(s.id(), s.name(), s.description(), s.category(), s.currentValue(),
                s.choices().stream().map(c -> new ConfigOption.Choice(c.value(), c.name(), c.description())).toList())).toList();
    }

    private static SessionUpdate.AvailableCommand command(AvailableCommand c) {
        return new SessionUpdate.AvailableCommand(c.name(), c.description(),
                c.inputHint() == null ? null : new SessionUpdate.CommandInput(c.inputHint()));
    }
}
