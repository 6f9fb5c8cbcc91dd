package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.record.EngineRecord;
import dev.langchain4j.data.message.ChatMessage;

import java.util.List;

/**
 * What a session writes to its journal as it goes, one method per thing that happened; each is one
 * {@link EngineRecord} ({@link SessionReplay} reads them back).
 */
final class SessionRecords {
    private SessionRecords() {}

    /** The user's prompt as it went to the model (it is part of the model history on restore). */
    static void userPrompt(Session s, List<ContentBlock> prompt) {
        userPrompt(s, prompt, false);
    }

    /** {@code local}: a command the agent answered itself; shown on replay, not part of the model history. */
    static void userPrompt(Session s, List<ContentBlock> prompt, boolean local) {
        // turns are numbered as SessionReplay counts them; a subagent's prompt is a step of its parent's turn, whose
        // checkpoint it shares
        if (!local && s.role() == null) s.checkpoints().turnStarted(prompt);
        s.journal().append(new EngineRecord.UserMessage(prompt, local));
    }

    static void modelMessage(Session s, ChatMessage message) {
        s.journal().append(new EngineRecord.ModelMessage(message));
    }

    static void agentText(Session s, String text) {
        s.journal().append(new EngineRecord.AgentText(ContentBlock.text(text)));
    }

    static void thought(Session s, String text) {
        s.journal().append(new EngineRecord.Thought(ContentBlock.text(text)));
    }

    static void title(Session s, String title) {
        s.journal().append(new EngineRecord.Title(title));
    }

    static void toolCall(Session s, AgentEvent.ToolCallStarted c) {
        s.journal().append(new EngineRecord.ToolCallStarted(c.toolCallId(), c.title(), c.kind(), c.status(), c.content(),
                c.locations(), c.rawInput()));
    }

    static void toolCallUpdate(Session s, AgentEvent.ToolCallUpdated u) {
        s.journal().append(new EngineRecord.ToolCallUpdated(u.toolCallId(), u.title(), u.kind(), u.status(), u.content(),
                u.locations(), u.rawInput(), u.rawOutput()));
    }

    static void plan(Session s, List<PlanEntry> entries) {
        s.journal().append(new EngineRecord.Plan(entries));
    }

    static void compaction(Session s, List<ChatMessage> replacement) {
        s.journal().append(new EngineRecord.Compaction(replacement));
    }

    /** The settings snapshot a load restores: model, mode, thought level, remembered permissions. */
    static void state(Session s) {
        s.journal().append(new EngineRecord.State(s.modeId(), s.permissionMode().id(), s.model(), s.thoughtLevel(),
                s.permissions().toJson()));
    }

    /** One model call's tokens and cost. */
    static void usage(Session s, EngineRecord.Usage usage) {
        s.journal().append(usage);
    }

    static void turnEnd(Session s, StopReason reason) {
        s.journal().append(new EngineRecord.TurnEnd(reason));
    }
}
