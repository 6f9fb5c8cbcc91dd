package cn.agentao.agent.core;

import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.memory.Memory;
import cn.agentao.agent.core.tool.CommandSource;
import cn.agentao.agent.core.tool.Connector;
import cn.agentao.agent.core.tool.ConnectorSession;
import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.permission.PermissionMemory;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import dev.langchain4j.data.message.UserMessage;
import com.fasterxml.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The process-wide parts every session shares, wired once: configuration and settings ({@link ModelSettings}),
 * the turn loop ({@link TurnRunner}) with compaction and slash commands, MCP start-up, and the tool sources.
 * Doors do not use it directly: they go through {@link SessionService} and {@link Session}.
 */
public final class Engine {
    /** Model calls one prompt may make before it ends with max_turn_requests (env AGENT_MAX_MODEL_CALLS). */
    public static final int DEFAULT_MAX_MODEL_CALLS = AgentConfig.DEFAULT_MAX_MODEL_CALLS;

    private final Path configDir;
    private final TrustedProjects trust;
    private final ModelSettings settings;
    private final TurnRunner turns;
    private final SessionCommands commands;
    private final List<ToolSource> sources = new CopyOnWriteArrayList<>();
    private final List<Connector> connectors = new CopyOnWriteArrayList<>();
    private final ToolCallExecutor tools;
    private volatile cn.agentao.agent.core.hook.Hooks hooks = cn.agentao.agent.core.hook.Hooks.NONE;
    private final Memory memory;
    private volatile java.util.function.Function<String, java.util.Optional<Path>> checkpointDirs = id -> java.util.Optional.empty();

    public Engine(AgentConfig config, ToolCallExecutor tools) {
        this.configDir = config.configDir();
        this.tools = tools;
        this.memory = new Memory(configDir);
        this.trust = new TrustedProjects(configDir.resolve(ConfigLocations.TRUSTED_PROJECTS));
        this.settings = new ModelSettings(config.environment(), trust, config.userJson());
        Compaction compaction = new Compaction();
        this.turns = new TurnRunner(settings, compaction, tools, this::toolSources,
                config.limits().maxModelCalls());
        this.commands = new SessionCommands(configDir, settings, compaction, turns, memory, trust);
        sources.add(tools.builtins());
    }

    public Path configDir() { return configDir; }

    /** The user's and the projects' memory files (in the config dir). */
    public Memory memory() { return memory; }

    ModelSettings settings() { return settings; }

    cn.agentao.agent.core.hook.Hooks hooks() { return hooks; }

    void hooks(cn.agentao.agent.core.hook.Hooks hooks) { this.hooks = hooks; }

    void addToolSource(ToolSource source) { sources.add(source); }

    void removeToolSource(ToolSource source) { sources.remove(source); }

    void addConnector(Connector connector) { connectors.add(connector); }

    /** Where each session's checkpoints are kept (by session id; empty: none). */
    void checkpointsIn(java.util.function.Function<String, java.util.Optional<Path>> dirs) { this.checkpointDirs = dirs; }

    /** The built-ins, the process-wide sources, then the session's own, in that order (the first with a name wins). */
    private List<ToolSource> toolSources(Session session) {
        List<ToolSource> all = new ArrayList<>(sources);
        all.addAll(session.toolSources());
        return session.role() == null ? all : session.role().narrow(all);
    }

    // ---------------------------------------------------------------- sessions

    /** Prepares a session's settings (restored ones when {@code restored} is not null), environment and MCP servers. */
    void open(Session session, SessionReplay.Restored restored) {
        if (restored != null) {
            session.resumed(true);
            settings.restore(session, restored.state());
            if (restored.title() != null) session.title(restored.title());
        }
        settings.applyDefaults(session);
        session.checkpoints(Checkpoints.open(checkpointDirs.apply(session.id()), session.cwd(),
                restored == null ? 0 : restored.prompts(), session::notice));
        session.journal().reportProblemsTo(session::notice);
        session.children(settings.children(session));
        settings.catalog(session.cwd()).warnings().forEach(w -> session.notice("Configuration: " + w));
        trust.problem().ifPresent(w -> session.notice("Configuration: " + w));
        ProjectFiles.outsideWorkspace(session.cwd()).forEach(session::notice);
        if (!trust.trusted(session.cwd())) SlashCommands.untrustedNotice(session.cwd()).ifPresent(session::notice);
        for (Connector c : connectors) c.open(new ConnectorView(session));
        if (restored != null) restoreConversation(session, restored);
    }

    /** Takes up a session as another instance left it (its turns since this one last saw it): settings and history. */
    void catchUp(Session session, SessionReplay.Restored restored) {
        session.checkpoints().turnsSoFar(restored.prompts());
        settings.restore(session, restored.state());
        if (restored.title() != null) session.title(restored.title());
        restoreConversation(session, restored);
    }

    private static void restoreConversation(Session session, SessionReplay.Restored restored) {
        session.conversation().replace(restored.history());
        session.usage(restored.usage());
        JsonNode permissions = restored.state() == null ? null : restored.state().permissions();
        if (permissions != null && permissions.isObject()) session.permissions(PermissionMemory.fromJson(permissions));
    }

    /** The door's user knows the session: the command list, the held notices, then the connectors' questions. */
    void ready(Session session) {
        List<String> held = session.markReady();
        session.emit(new AgentEvent.CommandsChanged(commands(session)));
        for (String text : held) session.emit(new AgentEvent.Notice(text));
        for (Runnable task : session.takeWhenReady()) Thread.ofVirtual().name("ready-" + session.id()).start(task);
    }

    private void commandsChanged(Session session) {
        session.emit(new AgentEvent.CommandsChanged(commands(session)));
    }

    List<AvailableCommand> commands(Session session) { return commands.available(session); }

    /** The session's skills (the project's only when the user trusts it); what was skipped is a notice. */
    cn.agentao.agent.skills.SkillCatalog discoverSkills(Session session) {
        var found = cn.agentao.agent.skills.SkillCatalog.discover(session.cwd(), configDir, trust.trusted(session.cwd()));
        found.notices().forEach(session::notice);
        return found;
    }

    /** A session as its connectors see it while it opens. */
    private final class ConnectorView implements ConnectorSession {
        private final Session session;

        ConnectorView(Session session) { this.session = session; }

        @Override public String id() { return session.id(); }
        @Override public Path cwd() { return session.cwd(); }
        @Override public List<McpServerConfig> mcpServers() { return session.mcpServers(); }
        @Override public ChildEnvironment children() { return session.children(); }
        @Override public Host host() { return session.host(); }
        @Override public void emit(AgentEvent event) { session.emit(event); }
        @Override public void notice(String text) { session.notice(text); }
        @Override public boolean isReady() { return session.isReady(); }
        @Override public void addToolSource(ToolSource source) { session.addToolSource(source); }
        @Override public void addCommands(CommandSource commands) { session.addCommands(commands); }
        @Override public void commandsChanged() { if (session.isReady()) Engine.this.commandsChanged(session); }
        @Override public void onClose(AutoCloseable resource) { session.closeWith(resource); }
        @Override public void whenReady(Runnable task) { session.whenReady(task); }
        @Override public cn.agentao.agent.skills.SkillCatalog skills() { return session.skills(); }
        @Override public void projectTrustChanged() { settings.reloadConfiguration(session.cwd()); }
        @Override public boolean projectTrusted() { return trust.trusted(session.cwd()); }
        @Override public cn.agentao.agent.core.tool.Subagents subagents() { return new ChildSessions(Engine.this, turns, session); }
    }

    // ---------------------------------------------------------------- turns

    /** Runs one prompt turn (a slash command, or a conversation with the model) and says why it ended. */
    StopReason runTurn(Session session, List<ContentBlock> prompt, Cancellation cancel) {
        String text = prompt.size() == 1 && prompt.get(0) instanceof ContentBlock.Text t ? t.text() : null;
        SlashCommands.Invocation command = text == null ? null : SlashCommands.parse(text);
        if (command == null) giveTitle(session, prompt); // "/model x" names no conversation: its first question does
        StopReason reason = null;
        if (command != null) reason = commands.run(session, command, prompt, cancel);
        if (reason == null) reason = turns.run(session, prompt, cancel);
        SessionRecords.turnEnd(session, reason);
        return reason;
    }

    /** The user's own command, run through the built-in shell; its output goes to {@code answer} and the history. */
    StopReason runUserCommand(Session session, String command, Cancellation cancel, java.util.function.Consumer<String> answer) {
        String output = tools.runUserCommand(session, command, cancel);
        if (cancel.isCancelled()) return StopReason.CANCELLED;
        String text = "I ran this command myself: `" + command + "`\n\n" + output;
        answer.accept(output);
        session.conversation().add(UserMessage.from(text));
        SessionRecords.userPrompt(session, List.of(ContentBlock.text(text)));
        SessionRecords.turnEnd(session, StopReason.END_TURN);
        return StopReason.END_TURN;
    }

    private static void giveTitle(Session session, List<ContentBlock> prompt) {
        if (!session.claimTitle()) return;
        String text = prompt.stream().filter(b -> b instanceof ContentBlock.Text).map(b -> ((ContentBlock.Text) b).text())
                .findFirst().orElse("").strip().replaceAll("\\s+", " ");
        if (text.isEmpty()) return;
        String title = text.length() > 80 ? text.substring(0, 79) + "…" : text;
        session.title(title);
        SessionRecords.title(session, title);
        session.emit(new AgentEvent.TitleChanged(title, Instant.now().toString()));
    }
}
