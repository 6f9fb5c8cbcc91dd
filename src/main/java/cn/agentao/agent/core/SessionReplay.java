package cn.agentao.agent.core;

import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.core.record.EngineRecords;
import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.event.AgentEvent;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Rebuilds a saved session from its engine records, in one pass as the repository reads them: the model
 * history, the settings, and the events that show the conversation again (user and agent text, thoughts,
 * each tool call once with its final state, the last plan).
 */
public final class SessionReplay implements Consumer<ObjectNode> {
    private static final Logger log = LoggerFactory.getLogger(SessionReplay.class);

    /**
     * What a load restores. {@code state} is the latest settings snapshot (null if none was written); {@code lastSeq}
     * the seq of the last record read (0 for none); {@code prompts} the prompts that went to the model (the turns).
     */
    public record Restored(List<ChatMessage> history, EngineRecord.State state, String title, List<AgentEvent> events,
                           UsageTotals usage, long lastSeq, int prompts) {}

    private final String sessionId;
    private final List<ChatMessage> history = new ArrayList<>();
    private UsageTotals usage = UsageTotals.NONE;
    /** The updates in order; a tool call's place holds null until its final state is known (see {@link #calls}). */
    private final List<AgentEvent> updates = new ArrayList<>();
    /** Each tool call's state so far, and the places in {@link #updates} that show it. */
    private final Map<String, ToolCallState> calls = new HashMap<>();
    /** Every tool call, also those whose id a later call reused (some OpenAI-compatible servers number calls per turn). */
    private final List<ToolCallState> allCalls = new ArrayList<>();
    /** Each subagent's own session, replayed apart, and the last of its start and stop records. */
    private final Map<String, SessionReplay> children = new HashMap<>();
    private final Map<String, EngineRecord.Subagent> subagents = new HashMap<>();
    /** The places in {@link #updates} (null there) where a subagent's session is shown: after the call that started it. */
    private final Map<Integer, String> subagentPlaces = new HashMap<>();
    private EngineRecord.State state;
    private String title;
    private EngineRecord.Plan plan;
    private long lastSeq;
    private int prompts;

    private static final class ToolCallState {
        AgentEvent.ToolCallStarted call;
        final List<Integer> places = new ArrayList<>();
    }

    private SessionReplay(String sessionId) {
        this.sessionId = sessionId;
    }

    /** Reads the session from {@code repository} and rebuilds it. */
    public static Restored restore(SessionRepository repository, String sessionId) {
        SessionReplay replay = new SessionReplay(sessionId);
        repository.scan(sessionId, replay);
        return replay.result();
    }

    /** Rebuilds a session from its records as read (whole lines), e.g. a fork's parent already in memory. */
    public static Restored restore(String sessionId, List<ObjectNode> records) {
        SessionReplay replay = new SessionReplay(sessionId);
        records.forEach(replay);
        return replay.result();
    }

    /** Takes the next stored record (the whole line); one that cannot be read is skipped with a warning. */
    @Override
    public void accept(ObjectNode line) {
        lastSeq = Math.max(lastSeq, line.path("seq").asLong());
        try {
            add(EngineRecords.read(line));
        } catch (RuntimeException e) {
            log.warn("session {}: skipping unreadable record {} ({})", sessionId, line.path("seq").asLong(), e.toString());
        }
    }

    private void add(EngineRecord record) {
        switch (record) {
            case EngineRecord.UserMessage u -> {
                u.content().forEach(b -> updates.add(new AgentEvent.UserMessage(b)));
                if (!u.local()) {
                    history.add(TurnRunner.userMessage(u.content()));
                    prompts++;
                }
            }
            case EngineRecord.AgentText a -> updates.add(new AgentEvent.MessageChunk(a.content()));
            case EngineRecord.Thought t -> updates.add(new AgentEvent.ThoughtChunk(t.content()));
            case EngineRecord.ModelMessage m -> {
                history.add(m.message());
                if (m.message() instanceof AiMessage ai) {
                    if (ai.thinking() != null && !ai.thinking().isEmpty()) updates.add(AgentEvent.ThoughtChunk.text(ai.thinking()));
                    if (ai.text() != null && !ai.text().isEmpty()) updates.add(AgentEvent.MessageChunk.text(ai.text()));
                }
            }
            case EngineRecord.Compaction c -> {
                history.clear();
                history.addAll(c.messages());
            }
            case EngineRecord.ToolCallStarted s -> {
                ToolCallState call = calls.get(s.toolCallId());
                if (call == null || ended(call.call)) { // a finished call's id again: another call, shown apart
                    call = new ToolCallState();
                    calls.put(s.toolCallId(), call);
                    allCalls.add(call);
                }
                call.call = new AgentEvent.ToolCallStarted(s.toolCallId(), s.title(), s.kind(), s.status(), s.content(),
                        s.locations(), s.rawInput(), null);
                call.places.add(updates.size());
                updates.add(null);
            }
            case EngineRecord.ToolCallUpdated u -> {
                ToolCallState call = calls.get(u.toolCallId());
                if (call != null) call.call = merge(call.call, u);
            }
            case EngineRecord.Plan p -> plan = p;
            case EngineRecord.State s -> state = s;
            case EngineRecord.Title t -> title = t.text();
            case EngineRecord.TurnEnd e -> { /* shows nothing */ }
            case EngineRecord.Usage u -> usage = usage.plus(u);
            case EngineRecord.Subagent a -> {
                if (subagents.put(a.sessionId(), a) == null) {
                    subagentPlaces.put(updates.size(), a.sessionId());
                    updates.add(null);
                }
            }
            case EngineRecord.ChildRecord c -> children.computeIfAbsent(c.sessionId(), SessionReplay::new).add(c.record());
            case EngineRecord.Unknown u -> { /* a newer engine's record: kept in the log, shows nothing */ }
        }
    }

    private Restored result() {
        for (ToolCallState call : allCalls) {
            AgentEvent.ToolCallStarted last = finalState(call.call);
            call.places.forEach(i -> updates.set(i, last));
        }
        List<AgentEvent> events = subagentPlaces.isEmpty() ? updates : withSubagents();
        if (plan != null) events.add(new AgentEvent.PlanChanged(plan.entries()));
        return new Restored(repair(history), state, title, events, usage, lastSeq, prompts);
    }

    /** The updates with each subagent shown where it started: its announcement, then its own session's updates. */
    private List<AgentEvent> withSubagents() {
        List<AgentEvent> out = new ArrayList<>();
        for (int i = 0; i < updates.size(); i++) {
            String child = subagentPlaces.get(i);
            if (child == null) {
                out.add(updates.get(i));
                continue;
            }
            EngineRecord.Subagent last = subagents.get(child);
            // one that never recorded its stop (the process died) shows as stopped, like a call left running
            out.add(new AgentEvent.SubagentChanged(child, last.title(), last.description(), "idle",
                    "running".equals(last.state()) ? cn.agentao.agent.core.content.StopReason.CANCELLED : last.stopReason()));
            SessionReplay own = children.get(child);
            if (own != null) own.result().events().forEach(e -> out.add(new AgentEvent.ChildEvent(child, e)));
        }
        return out;
    }

    private static AgentEvent.ToolCallStarted merge(AgentEvent.ToolCallStarted c, EngineRecord.ToolCallUpdated u) {
        return new AgentEvent.ToolCallStarted(c.toolCallId(), or(u.title(), c.title()),
                or(u.kind(), c.kind()), or(u.status(), c.status()),
                or(u.content(), c.content()), or(u.locations(), c.locations()),
                or(u.rawInput(), c.rawInput()), or(u.rawOutput(), c.rawOutput()));
    }

    private static boolean ended(AgentEvent.ToolCallStarted call) {
        return call != null && (call.status() == ToolCallStatus.COMPLETED || call.status() == ToolCallStatus.FAILED);
    }

    private static <T> T or(T changed, T before) {
        return changed != null ? changed : before;
    }

    /** The tool call as it ended; one left running when the process died shows as failed. */
    private static AgentEvent.ToolCallStarted finalState(AgentEvent.ToolCallStarted c) {
        if (c.status() == ToolCallStatus.COMPLETED || c.status() == ToolCallStatus.FAILED) return c;
        return new AgentEvent.ToolCallStarted(c.toolCallId(), c.title(), c.kind(), ToolCallStatus.FAILED, c.content(),
                c.locations(), c.rawInput(), c.rawOutput());
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
}
