package cn.agentao.agent.core;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.Setting;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.content.TurnResult;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.repository.SessionBusyException;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.core.tool.BackgroundProcesses;
import cn.agentao.agent.core.tool.CommandSource;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.permission.PermissionMemory;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One live conversation, whatever front door serves it: where it works, its settings, its model history, its
 * host (the door), its tool sources, and its turn slot (at most one turn runs at a time). Sessions come from
 * {@link SessionService}; a door runs prompts with {@link #prompt} (or {@link #beginTurn} and {@link Turn#run}),
 * cancels with {@link #cancel}, changes settings with {@link #set}, and ends the session with {@link #close}.
 */
public final class Session {
    private static final Logger log = LoggerFactory.getLogger(Session.class);

    private final String id;
    private final Path cwd;
    private final List<Path> additionalDirectories;
    private final List<McpServerConfig> mcpServers;
    private final Host host;
    private final Engine engine;
    private final SessionJournal journal;
    private final Conversation conversation = new Conversation();
    private final List<ToolSource> toolSources = new CopyOnWriteArrayList<>();
    private final AtomicReference<Turn> activeTurn = new AtomicReference<>();
    private final AtomicBoolean sandboxTold = new AtomicBoolean();
    private final AtomicBoolean hooksStarted = new AtomicBoolean();
    private volatile boolean resumed;
    private final List<String> heldNotices = new ArrayList<>(); // guarded by this
    private boolean ready; // guarded by this
    private volatile String modeId = Mode.DEFAULT.id();
    private volatile Mode permissionMode = Mode.DEFAULT;
    private volatile String model;
    private volatile String thoughtLevel;
    private volatile UsageTotals usage = UsageTotals.NONE;
    private volatile String title;
    private volatile boolean titled;
    private volatile boolean closed;
    private volatile PermissionMemory permissions = new PermissionMemory();
    private volatile ChildEnvironment children;
    private final List<CommandSource> commandSources = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
    private final List<Runnable> whenReady = new ArrayList<>(); // guarded by this
    private volatile Runnable onClose = () -> { };
    private volatile Checkpoints checkpoints = Checkpoints.none();
    private final BackgroundProcesses background = new BackgroundProcesses();
    private final java.util.concurrent.atomic.AtomicReference<cn.agentao.agent.skills.SkillCatalog> skills = new java.util.concurrent.atomic.AtomicReference<>();
    private volatile ChildSessions.Role role; // set when this is a subagent's session

    Session(String id, SessionService.Spec spec, Host host, Engine engine, SessionJournal journal) {
        this.id = id;
        this.cwd = spec.cwd();
        this.additionalDirectories = List.copyOf(spec.additionalDirectories());
        this.mcpServers = List.copyOf(spec.mcpServers());
        this.host = host;
        this.engine = engine;
        this.journal = journal;
    }

    // ---------------------------------------------------------------- for front doors

    public String id() { return id; }
    public Path cwd() { return cwd; }
    public List<Path> additionalDirectories() { return additionalDirectories; }
    public List<McpServerConfig> mcpServers() { return mcpServers; }
    public Host host() { return host; }
    /** The current mode (permission preset) id. */
    public String modeId() { return modeId; }
    /** {@code provider/model}, or null when no model is configured. */
    public String model() { return model; }
    public String thoughtLevel() { return thoughtLevel; }
    /** The title (from the first prompt, or restored), or null. */
    public String title() { return title; }
    public boolean isClosed() { return closed; }

    /** The commands it runs in the background (ended when it closes). */
    public BackgroundProcesses background() { return background; }

    /**
     * The door's user knows the session now (ACP: after the session/new answer went out): notices held until then
     * are shown, the command list is sent, and a pending question (trust this project's MCP servers?) is asked.
     * Until it is called, events other than notices may already be emitted (a replay).
     */
    public void ready() { engine.ready(this); }

    Engine engine() { return engine; }

    /**
     * Reserves the turn slot and, in a shared store, the session's lease (reading first what another instance added
     * meanwhile); {@link CoreException.Busy} when a turn is already running, here or on another instance, when the
     * store cannot be reached, or when the session is closed. Run the turn: that frees both.
     */
    public Turn beginTurn() throws CoreException.Busy {
        if (closed) throw new CoreException.Busy("session " + id + " is closed");
        Turn turn = new Turn();
        if (!activeTurn.compareAndSet(null, turn)) throw new CoreException.Busy("session " + id + " already has an active turn");
        try {
            SessionReplay.Restored moved = journal.acquire();
            if (moved != null) engine.catchUp(this, moved);
        } catch (SessionBusyException e) {
            activeTurn.compareAndSet(turn, null);
            throw new CoreException.Busy("session " + id + " is answering on another agent instance; try again when that turn ends");
        } catch (SessionStoreException e) {
            activeTurn.compareAndSet(turn, null);
            throw new CoreException.Busy("session " + id + " cannot be continued now: " + e.getMessage());
        } catch (RuntimeException e) {
            activeTurn.compareAndSet(turn, null);
            throw e;
        }
        return turn;
    }

    /**
     * Runs one prompt turn (a slash command, or a conversation with the model and its tools) and returns how it
     * ended. Events stream to the host meanwhile. {@code cancel} (or {@link #cancel()}) ends it early with
     * {@code cancelled}.
     */
    public TurnResult prompt(List<ContentBlock> prompt, Cancellation cancel) throws CoreException.Busy {
        Turn turn = beginTurn();
        try (Cancellation.Registration ignored = cancel.onCancel(turn.cancellation()::cancel)) {
            return turn.run(prompt);
        }
    }

    /** {@link Turn#runUserCommand} in a turn of its own; {@link CoreException.Busy} while another runs. */
    public TurnResult runUserCommand(String commandLine, Cancellation cancel) throws CoreException.Busy {
        Turn turn = beginTurn();
        try (Cancellation.Registration ignored = cancel.onCancel(turn.cancellation()::cancel)) {
            return turn.runUserCommand(commandLine);
        }
    }

    /** Cancels the running turn, if any; a cancel with nothing running leaves no trace. Returns whether one ran. */
    public boolean cancel() {
        Turn turn = activeTurn.get();
        if (turn == null) return false;
        turn.cancellation().cancel();
        return true;
    }

    public boolean hasActiveTurn() { return activeTurn.get() != null; }

    /** The settings (mode, model, thought level) with their current values and choices. */
    public List<Setting> settings() { return engine.settings().describe(this); }

    /** Changes a setting (see {@link Setting} ids) for the next turn; emits the changes. */
    public void set(String settingId, String value) throws CoreException {
        engine.settings().set(this, settingId, value);
    }

    /** Switches the mode (permission preset); unknown ids are refused naming the valid ones. */
    public void setMode(String modeId) throws CoreException { engine.settings().setMode(this, modeId); }

    /** A model for the current provider ("model") or another ("provider/model"); returns the model id now active. */
    public String setModel(String model) throws CoreException { return engine.settings().setBareModel(this, model); }

    /** The slash commands the user can run: built-ins, the user's prompt templates, the MCP servers' prompts. */
    public List<AvailableCommand> commands() { return engine.commands(this); }

    /** Adds a tool source for this session only (after the process-wide ones); its tools join at the next model call. */
    public void addToolSource(ToolSource source) { toolSources.add(source); }

    public void removeToolSource(ToolSource source) { toolSources.remove(source); }

    /** Shows a message outside any answer (held until {@link #ready()}); it is logged too. */
    public void notice(String text) {
        log.warn("session {}: {}", id, text);
        synchronized (this) {
            if (!ready) {
                heldNotices.add(text);
                return;
            }
        }
        emit(new AgentEvent.Notice(text));
    }

    /** Ends the session here: cancels its turn, stops its MCP servers, closes its record (the saved session stays). */
    public void close() {
        if (closed) return;
        closed = true;
        cancel();
        onClose.run();
        background.close();
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception e) {
                log.debug("session {}: closing {} failed", id, r, e);
            }
        }
        journal.close();
    }

    /** A running turn: its cancellation, and the prompt it runs. */
    public final class Turn {
        private final CancellationSource cancellation = new CancellationSource();
        private final StringBuilder text = new StringBuilder(); // guarded by this
        private volatile TurnResult.Usage usage;
        private volatile String error;
        private volatile boolean answerCut;

        private Turn() { }

        private synchronized void observe(AgentEvent e) {
            if (e instanceof AgentEvent.MessageChunk m && m.content() instanceof ContentBlock.Text t) text.append(t.text());
            else if (e instanceof AgentEvent.UsageChanged u) usage = new TurnResult.Usage(u.used(), u.size());
        }

        public CancellationSource cancellation() { return cancellation; }

        /** Runs the prompt in this turn and frees the slot. */
        public TurnResult run(List<ContentBlock> prompt) {
            return finish(() -> engine.runTurn(Session.this, prompt, cancellation));
        }

        /**
         * Runs a command the user typed (a terminal's {@code !command}) in this turn, as {@code run_shell_command}
         * under the same permission and sandbox rules as the model's (shown like them); its output joins the
         * conversation for the next prompt. The result's text is the command's output as the model will see it.
         */
        public TurnResult runUserCommand(String commandLine) {
            return finish(() -> engine.runUserCommand(Session.this, commandLine, cancellation, this::answer));
        }

        private void answer(String t) {
            synchronized (this) {
                text.append(t);
            }
        }

        private TurnResult finish(java.util.function.Supplier<StopReason> body) {
            HeapTrim.turnStarted();
            try {
                StopReason reason = body.get();
                synchronized (this) {
                    return new TurnResult(reason, usage, text.toString(), error, answerCut);
                }
            } finally {
                try {
                    journal.release();
                } finally {
                    activeTurn.compareAndSet(this, null);
                    HeapTrim.turnEnded();
                }
            }
        }
    }

    // ---------------------------------------------------------------- for the core

    void onClose(Runnable r) { this.onClose = r; }

    /**
     * The running turn's model call failed for {@code reason} (shown to the user as well); {@code cut}: after part of
     * the answer was shown.
     */
    void turnFailed(String reason, boolean cut) {
        Turn t = activeTurn.get();
        if (t != null) {
            t.error = reason;
            t.answerCut = cut;
        }
    }

    /** Shows an event through the host; the running turn keeps its answer text and usage for its result. */
    void emit(AgentEvent e) {
        Turn t = activeTurn.get();
        if (t != null) t.observe(e);
        host.emit(e);
    }
    void modeId(String modeId) { this.modeId = modeId; }
    /** Tokens and cost so far (a reopened session's included). */
    UsageTotals usage() { return usage; }
    void usage(UsageTotals totals) { this.usage = totals; }
    /** The permission preset in force: the last preset mode set. */
    Mode permissionMode() { return permissionMode; }
    void permissionMode(Mode mode) { this.permissionMode = mode; }
    void model(String model) { this.model = model; }
    void thoughtLevel(String level) { this.thoughtLevel = level; }
    void title(String title) { this.title = title; }
    SessionJournal journal() { return journal; }
    /** What {@code /undo} and {@code /rewind} restore: the files' contents before each turn changed them. */
    Checkpoints checkpoints() { return checkpoints; }
    void checkpoints(Checkpoints c) { this.checkpoints = c; }
    Conversation conversation() { return conversation; }
    List<ToolSource> toolSources() { return toolSources; }
    PermissionMemory permissions() { return permissions; }
    void permissions(PermissionMemory restored) { this.permissions = restored; }
    /** The slash commands connectors gave the session (MCP prompts). */
    List<CommandSource> commandSources() { return commandSources; }
    void addCommands(CommandSource commands) { commandSources.add(commands); }
    /** The session's skills, found on first use (a turn, the command list), never while it opens. */
    public cn.agentao.agent.skills.SkillCatalog skills() {
        if (role != null) return role.parent().skills();
        cn.agentao.agent.skills.SkillCatalog s = skills.get();
        if (s != null) return s;
        synchronized (skills) {
            if (skills.get() == null) skills.set(engine.discoverSkills(this));
            return skills.get();
        }
    }
    /** What makes this session a subagent's (its name, tools, limit, parent); null for a session of a door. */
    ChildSessions.Role role() { return role; }
    void role(ChildSessions.Role role) { this.role = role; }
    /** Closed with the session (its MCP servers). */
    void closeWith(AutoCloseable resource) { resources.add(resource); }

    /** The environment of the session's commands and stdio MCP servers. */
    ChildEnvironment children() {
        ChildEnvironment c = children;
        return c != null ? c : ChildEnvironment.ofAgent(cwd == null ? List.of() : List.of(cwd));
    }

    void children(ChildEnvironment environment) { this.children = environment; }

    /** Runs {@code task} once the session is ready (a connector's question for the user). */
    synchronized void whenReady(Runnable task) { whenReady.add(task); }

    /** The tasks waiting for the session to be ready, taken once. */
    synchronized List<Runnable> takeWhenReady() {
        List<Runnable> out = List.copyOf(whenReady);
        whenReady.clear();
        return out;
    }

    /** Marks the session ready; returns the notices held until then. */
    synchronized List<String> markReady() {
        ready = true;
        List<String> out = List.copyOf(heldNotices);
        heldNotices.clear();
        return out;
    }

    synchronized boolean isReady() { return ready; }

    /** The user's hooks (see {@link cn.agentao.agent.core.hook.Hooks}). */
    cn.agentao.agent.core.hook.Hooks hooks() { return engine.hooks(); }

    /** Marks the session as reopened from its record (its SessionStart hooks see {@code resume}). */
    void resumed(boolean value) { this.resumed = value; }

    /** The SessionStart source the first time it is called in this process ({@code startup} or {@code resume}); then null. */
    String claimSessionStart() { return hooksStarted.compareAndSet(false, true) ? (resumed ? "resume" : "startup") : null; }

    /** True the first time it is called: the session's first command says how commands are sandboxed. */
    boolean claimSandboxStatus() { return sandboxTold.compareAndSet(false, true); }

    /** True the first time it is called: the session gets its title from its first prompt. */
    boolean claimTitle() {
        if (titled || title != null) return false;
        titled = true;
        return true;
    }
}
