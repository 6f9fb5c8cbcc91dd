package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.core.host.HostEnvironment;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.core.tool.Subagents;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import dev.langchain4j.agent.tool.ToolSpecification;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The subagents of one session: each run is a child {@link Session} (never registered, never opened by the
 * connectors; its records kept in the parent's session, marked with its id) that shares the parent's workspace, tool
 * sources (narrowed by its brief, never a {@link Subagents.Starter}), model, permission memory and child environment,
 * runs the parent's mode or a read-only one, and runs one turn of the same {@link TurnRunner} under the parent's
 * cancellation. Its events become the {@code task} call's progress, or, where the door shows it as a session of its
 * own ({@link Host#childSession}), go there; its questions go to the parent's user with its name, one child at a time.
 */
final class ChildSessions implements Subagents {
    private static final AtomicLong SEQ = new AtomicLong();
    /** The progress shown keeps the last this many characters of the child's transcript. */
    static final int MAX_TRANSCRIPT = 8_000;

    /** What makes a session a child: its name, instructions, tools (empty: all), model-call limit and parent. */
    record Role(String name, String instructions, Set<String> tools, int maxTurns, Session parent) {
        boolean offers(String tool) { return !TOOL.equals(tool) && (tools.isEmpty() || tools.contains(tool)); }

        /** The sources the child sees: the parent's, narrowed to its tools, without any that starts a subagent. */
        List<ToolSource> narrow(List<ToolSource> all) {
            return List.of(new ToolSource() {
                @Override public String name() { return "subagent:" + Role.this.name; }

                @Override
                public List<ToolSpecification> specifications() {
                    return cn.agentao.agent.core.tool.ToolSources.specifications(all).stream()
                            .filter(s -> offers(s.name()) && tool(s.name()).isPresent()).toList();
                }

                @Override
                public Optional<Tool> tool(String name) {
                    return offers(name) ? cn.agentao.agent.core.tool.ToolSources.find(all, name).filter(t -> !(t instanceof Subagents.Starter))
                            : Optional.empty();
                }
            });
        }
    }

    private final Engine engine;
    private final TurnRunner turns;
    private final Session parent;
    /** Children of one answer run at once; their questions reach the user one at a time. */
    private final ReentrantLock asking = new ReentrantLock();

    ChildSessions(Engine engine, TurnRunner turns, Session parent) {
        this.engine = engine;
        this.turns = turns;
        this.parent = parent;
    }

    @Override
    public boolean available() { return parent.role() == null; }

    @Override
    public Outcome run(Brief brief, String description, String prompt, Cancellation cancel, ToolProgress progress) {
        if (!available()) return new Outcome("", "a subagent cannot start another subagent", false);
        Mode mode = parent.permissionMode();
        String modeId = parent.modeId();
        if (brief.readOnly() && !mode.isReadOnly()) {
            mode = Mode.READ_ONLY;
            modeId = mode.id();
        }
        String id = parent.id() + "/" + brief.name() + "-" + SEQ.incrementAndGet();
        Host shown = parent.host().childSession(id); // its own session at the door, or the task call's progress
        Transcript transcript = new Transcript(shown == null ? progress : ToolProgress.NONE);
        String title = "Agent " + brief.name();
        if (description != null && description.isBlank()) description = null; // none given: the door shows its title
        announce(new EngineRecord.Subagent(id, title, description, "running", null));
        Session child = new Session(id, new SessionService.Spec(parent.cwd(), parent.additionalDirectories(), List.of()),
                new ChildHost(parent, shown, brief.name(), id, transcript, asking), engine, new ChildJournal(parent.journal(), id));
        child.role(new Role(brief.name(), brief.instructions(), Set.copyOf(brief.tools()), brief.maxTurns(), parent));
        child.modeId(modeId);
        child.permissionMode(mode);
        child.model(model(brief, transcript));
        child.thoughtLevel(parent.thoughtLevel());
        child.children(parent.children());
        child.permissions(parent.permissions());
        child.checkpoints(parent.checkpoints()); // its file changes are part of the parent's turn, taken back by /undo
        parent.toolSources().forEach(child::addToolSource);
        child.claimSessionStart(); // the session's SessionStart hooks ran for the parent
        child.markReady();
        if (shown != null) shown.emit(new AgentEvent.UserMessage(ContentBlock.text(prompt))); // its session opens with its task
        StopReason reason = StopReason.CANCELLED;
        try {
            reason = turns.run(child, List.of(ContentBlock.text(prompt)), cancel);
        } finally {
            child.close();
            announce(new EngineRecord.Subagent(id, title, description, "idle", reason));
        }
        String answer = transcript.answer();
        return switch (reason) {
            case END_TURN -> new Outcome(answer, null, false);
            case CANCELLED -> new Outcome(answer, "it was cancelled", true);
            case MAX_TURN_REQUESTS -> new Outcome(answer, "it reached its limit of " + brief.maxTurns() + " model calls", false);
            case MAX_TOKENS -> new Outcome(answer, "its answer reached the model's output limit", false);
            case REFUSAL -> new Outcome(answer, "the model refused to answer", false);
        };
    }

    /** Records the child's start or stop in the parent's session and shows it at the parent's door. */
    private void announce(EngineRecord.Subagent change) {
        parent.journal().append(change);
        parent.emit(new AgentEvent.SubagentChanged(change.sessionId(), change.title(), change.description(), change.state(),
                change.stopReason()));
    }

    /** The child's records go to its parent's session, each marked with the child's id, so it reloads with it. */
    private record ChildJournal(SessionJournal parent, String childId) implements SessionJournal {
        @Override public void append(EngineRecord record) { parent.append(new EngineRecord.ChildRecord(childId, record)); }

        @Override public void close() { }
    }

    /** The brief's model when it is configured here ({@code provider/model}, or a model of the parent's provider). */
    private String model(Brief brief, Transcript transcript) {
        String own = parent.model();
        if (brief.model() == null || own == null) return own;
        String value = brief.model().contains("/") ? brief.model() : own.substring(0, own.indexOf('/') + 1) + brief.model();
        if (engine.settings().catalog(parent.cwd()).find(value).isPresent()) return value;
        transcript.line("(model " + brief.model() + " is not configured here; using " + own + ")");
        return own;
    }

    /**
     * What the child said and did, as the {@code task} call's progress: its text and a line per tool call, the last
     * {@value #MAX_TRANSCRIPT} characters. Its answer is the text after its last tool call.
     */
    static final class Transcript {
        private final ToolProgress progress;
        private final StringBuilder log = new StringBuilder();
        private final StringBuilder answer = new StringBuilder();

        Transcript(ToolProgress progress) { this.progress = progress; }

        synchronized void text(String t) {
            answer.append(t);
            append(t);
        }

        synchronized void line(String l) {
            answer.setLength(0);
            append((log.isEmpty() || log.charAt(log.length() - 1) == '\n' ? "" : "\n") + l + "\n");
        }

        synchronized String answer() { return answer.toString().strip(); }

        private void append(String s) {
            log.append(s);
            if (log.length() > MAX_TRANSCRIPT) log.delete(0, log.length() - MAX_TRANSCRIPT);
            progress.show(List.of(ToolCallContent.text(log.toString())));
        }
    }

    /**
     * The child's front door: its events become the transcript; its approval questions go to the parent's user, the
     * call shown there as a tool call of its own, labelled with the child's name, and finished when the child's is;
     * its free-text questions likewise. Where files and commands run, and for whom, is the parent's.
     */
    private static final class ChildHost implements Host {
        private final Session parent;
        /** The child's own session at the door, when the door shows it (then its events and questions go there). */
        private final Host own;
        private final String name;
        private final String childId;
        private final Transcript transcript;
        private final Set<String> shown = ConcurrentHashMap.newKeySet();
        private final ReentrantLock asking;

        ChildHost(Session parent, Host own, String name, String childId, Transcript transcript, ReentrantLock asking) {
            this.parent = parent;
            this.own = own;
            this.asking = asking;
            this.name = name;
            this.childId = childId;
            this.transcript = transcript;
        }

        private String label(String text) { return "[" + name + "] " + text; }

        @Override
        public void emit(AgentEvent event) {
            if (own != null) { // its session shows everything; the transcript only keeps its answer
                own.emit(event);
                switch (event) {
                    case AgentEvent.MessageChunk m when m.content() instanceof ContentBlock.Text t -> transcript.text(t.text());
                    case AgentEvent.ToolCallStarted s -> transcript.line("→ " + s.title());
                    default -> { }
                }
                return;
            }
            switch (event) {
                case AgentEvent.MessageChunk m when m.content() instanceof ContentBlock.Text t -> transcript.text(t.text());
                case AgentEvent.ToolCallStarted s -> transcript.line("→ " + s.title());
                case AgentEvent.ToolCallUpdated u when u.status() == ToolCallStatus.FAILED || u.status() == ToolCallStatus.COMPLETED -> {
                    if (u.status() == ToolCallStatus.FAILED) transcript.line("  (failed)");
                    if (shown.remove(u.toolCallId())) {
                        parent.emit(new AgentEvent.ToolCallUpdated(childId + "/" + u.toolCallId(), null, null, u.status(),
                                u.content(), null, null, null));
                    }
                }
                case AgentEvent.Notice n -> parent.notice("Subagent " + name + ": " + n.text());
                default -> { }
            }
        }

        @Override
        public ApprovalAnswer askApproval(ApprovalRequest request, Cancellation cancel) throws CancelledException {
            AgentEvent.ToolCallStarted c = request.toolCall();
            if (own != null) return oneAtATime(cancel, () -> own.askApproval(request, cancel)); // asked in its own session
            AgentEvent.ToolCallStarted labelled = new AgentEvent.ToolCallStarted(childId + "/" + c.toolCallId(), label(c.title()),
                    c.kind(), c.status(), c.content(), c.locations(), c.rawInput(), c.rawOutput());
            if (shown.add(c.toolCallId())) parent.emit(labelled);
            return oneAtATime(cancel, () -> parent.host().askApproval(new ApprovalRequest(labelled, request.options()), cancel));
        }

        @Override
        public Optional<String> askUser(Question question, Cancellation cancel) throws CancelledException {
            Host to = own != null ? own : parent.host();
            return oneAtATime(cancel, () -> to.askUser(new Question(label(question.text()), question.options()), cancel));
        }

        private interface Asking<T> {
            T ask() throws CancelledException;
        }

        /** Asks the parent's user once no other child of the session is asking; a cancelled child asks nothing. */
        private <T> T oneAtATime(Cancellation cancel, Asking<T> question) throws CancelledException {
            asking.lock();
            try {
                if (cancel.isCancelled()) throw new CancelledException();
                return question.ask();
            } finally {
                asking.unlock();
            }
        }

        @Override public boolean answersForUser() { return parent.host().answersForUser(); }

        @Override public boolean keepsMemory() { return parent.host().keepsMemory(); }

        @Override public HostEnvironment environment() { return parent.host().environment(); }
    }
}
