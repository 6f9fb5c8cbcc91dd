package cn.agentao.agent.core;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.childenv.Credentials;
import cn.agentao.agent.childenv.OwnEnviron;
import cn.agentao.agent.jsonrpc.ErrorCodes;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.connect.mcp.McpConfigFiles;
import cn.agentao.agent.connect.mcp.McpException;
import cn.agentao.agent.connect.mcp.McpServerSet;
import cn.agentao.agent.connect.mcp.ProjectMcpFile;
import cn.agentao.agent.model.ConfigLocations;
import cn.agentao.agent.model.ModelCatalog;
import cn.agentao.agent.model.ModelChoice;
import cn.agentao.agent.model.ModelClient;
import cn.agentao.agent.model.ModelException;
import cn.agentao.agent.model.ModelRequest;
import cn.agentao.agent.model.ModelResponse;
import cn.agentao.agent.model.ModelStreamListener;
import cn.agentao.agent.model.TokenCount;
import cn.agentao.agent.model.UnknownProviderException;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.permission.PermissionMemory;
import cn.agentao.agent.protocol.ConfigOption;
import cn.agentao.agent.protocol.ContentBlock;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.protocol.SessionMode;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.protocol.StopReason;
import cn.agentao.agent.core.Session;
import cn.agentao.agent.store.RecordTypes;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one engine behind every front door: session settings (mode, model), slash commands, and the turn loop.
 * Front doors own transport and validation; the engine owns behaviour.
 */
public final class Engine implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Engine.class);
    public static final String AUTH_METHOD_ID = "model-provider-env";
    public static final String CONFIG_MODEL = "model";
    public static final String CONFIG_MODE = "mode";
    public static final String CONFIG_THOUGHT_LEVEL = "thought_level";
    /** Model calls one prompt may make before it ends with max_turn_requests (env AGENT_MAX_MODEL_CALLS). */
    public static final int DEFAULT_MAX_MODEL_CALLS = 50;
    /** Compact when the estimated history passes this share of the model's context window. */
    static final double COMPACT_AT = 0.8;
    /** How long session/new waits for MCP servers before the slow ones join later. */
    static final Duration MCP_READY_WAIT = Duration.ofMillis(2500);

    /** What this build truthfully supports, advertised in initialize. */
    public record Features(boolean loadSession, boolean sessionStore, boolean mcpHttp, boolean mcpSse) {}

    private static final List<SessionMode> MODES = Arrays.stream(Mode.values()).map(Mode::toSessionMode).toList();

    private final Map<String, String> env;
    private final Path configDir;
    private final TrustedProjects trust;
    private final Features features;
    private final TurnRunner turns;
    private final ToolCallRunner tools;
    private final Map<String, SessionRuntime> runtimes = new ConcurrentHashMap<>();
    private final Map<String, ModelClient> modelClients = new ConcurrentHashMap<>();
    private volatile Map<Path, ModelCatalog> catalogs = new ConcurrentHashMap<>();
    private volatile Map<Path, Credentials> credentials = new ConcurrentHashMap<>();

    public Engine(Map<String, String> env, Path configDir, Features features, ToolCallRunner tools) {
        this.env = env;
        this.configDir = configDir;
        this.trust = new TrustedProjects(configDir.resolve(ConfigLocations.TRUSTED_PROJECTS));
        this.features = features;
        this.tools = tools;
        this.turns = new TurnRunner(this, tools, intFromEnv(env, "AGENT_MAX_MODEL_CALLS", DEFAULT_MAX_MODEL_CALLS));
    }

    private static int intFromEnv(Map<String, String> env, String name, int fallback) {
        try {
            String v = env.get(name);
            return v == null ? fallback : Math.max(1, Integer.parseInt(v.strip()));
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    public Features features() { return features; }

    public Path configDir() { return configDir; }

    // ---------------------------------------------------------------- configuration

    private ModelCatalog catalog(Path cwd) {
        Path key = cwd == null ? Path.of(System.getProperty("user.dir")) : cwd;
        return catalogs.computeIfAbsent(key, k -> {
            ModelCatalog c = ModelCatalog.load(env, ConfigLocations.standard(k, env, trust.trusted(k)));
            c.warnings().forEach(w -> log.warn("configuration: {}", w));
            return c;
        });
    }

    /** What counts as a credential for children in {@code cwd}; also blanked in the agent's own /proc environ. */
    private Credentials credentials(Path cwd) {
        Path key = cwd == null ? Path.of(System.getProperty("user.dir")) : cwd;
        return credentials.computeIfAbsent(key, k -> {
            Credentials c = Credentials.load(env, ConfigLocations.standard(k, env, trust.trusted(k)), catalog(k));
            OwnEnviron.hide(c);
            return c;
        });
    }

    /** The environment of a session's commands and stdio MCP servers (see {@link ChildEnvironment}). */
    ChildEnvironment children(Session session) {
        List<Path> roots = new ArrayList<>();
        if (session.cwd() != null) roots.add(session.cwd());
        roots.addAll(session.additionalDirectories());
        return ChildEnvironment.of(env, credentials(session.cwd()), roots);
    }

    public boolean configured(Path cwd) { return catalog(cwd).configured(); }

    public String authHelp() { return catalog(null).missingConfigurationHelp(); }

    public JsonRpcException authRequired() {
        return new JsonRpcException(ErrorCodes.AUTH_REQUIRED, "Authentication required: no model provider is configured. " + authHelp());
    }

    /** Forgets cached configuration so the next look re-reads environment files and the config file. */
    public void reloadConfiguration() {
        catalogs = new ConcurrentHashMap<>();
        credentials = new ConcurrentHashMap<>();
        modelClients.clear();
    }

    /** Forgets the configuration of one project (its trust changed): its next session reads it afresh. */
    void reloadConfiguration(Path cwd) {
        catalogs.remove(cwd);
        modelClients.keySet().removeIf(k -> k.startsWith(cwd + "\n"));
    }

    TrustedProjects trust() { return trust; }

    ModelChoice currentChoice(Session session) {
        ModelCatalog catalog = catalog(session.cwd());
        return catalog.find(session.model()).or(catalog::defaultChoice)
                .orElseThrow(() -> new IllegalStateException("no model configured"));
    }

    ModelClient modelClient(Session session, ModelChoice choice) {
        ModelCatalog catalog = catalog(session.cwd());
        return modelClients.computeIfAbsent(session.cwd() + "\n" + choice.value(), k -> catalog.client(choice));
    }

    String reasoningEffort(Session session) {
        ModelChoice choice = currentChoice(session);
        if (!choice.supportsReasoningEffort()) return null;
        String level = session.thoughtLevel();
        return level != null && choice.reasoningEfforts().contains(level) ? level : null;
    }

    // ---------------------------------------------------------------- sessions

    /** Prepares a new session's settings and remembers how to reach its client. */
    public SessionRuntime open(Session session, SessionClient client, SessionJournal journal) {
        if (session.model() == null) catalog(session.cwd()).defaultChoice().ifPresent(c -> session.model(c.value()));
        SessionRuntime rt = new SessionRuntime(session, client, journal, r -> r.journal().append(RecordTypes.STATE, stateRecord(r)));
        journal.reportProblemsTo(text -> notice(rt, text));
        rt.children(children(session));
        runtimes.put(session.id(), rt);
        catalog(session.cwd()).warnings().forEach(w -> notice(rt, "Configuration: " + w));
        trust.problem().ifPresent(w -> notice(rt, "Configuration: " + w));
        ProjectFiles.outsideWorkspace(session.cwd()).forEach(w -> notice(rt, w));
        startMcpServers(rt);
        tools.opened(rt);
        return rt;
    }

    /** Opens a saved session: its settings, title and model history as they were. */
    public SessionRuntime openRestored(Session session, SessionClient client, SessionJournal journal, SessionReplay.Restored restored) {
        ObjectNode state = restored.state();
        if (state != null) {
            if (state.hasNonNull("mode")) Mode.fromId(state.path("mode").asText()).ifPresent(m -> session.modeId(m.id()));
            if (state.hasNonNull("permissionMode")) Mode.fromId(state.path("permissionMode").asText()).ifPresent(session::permissionMode);
            if (state.hasNonNull("model") && catalog(session.cwd()).find(state.path("model").asText()).isPresent()) {
                session.model(state.path("model").asText());
            }
            if (state.hasNonNull("thoughtLevel")) session.thoughtLevel(state.path("thoughtLevel").asText());
        }
        if (restored.title() != null) session.title(restored.title());
        SessionRuntime rt = open(session, client, journal);
        rt.conversation().replace(restored.history());
        if (state != null && state.path("permissions").isObject()) {
            rt.permissions(PermissionMemory.fromJson(state.path("permissions")));
        }
        return rt;
    }

    /**
     * Starts the session's MCP servers (the client's list over the user's and the project's mcp.json) all at
     * once, waiting at most {@link #MCP_READY_WAIT} for them: a slow one joins when ready, a failed one is named
     * to the user, and the session goes on either way. The project's servers start only when the user trusts
     * that very file; otherwise they are asked about once the client knows the session ({@link ProjectTrustQuestion}).
     */
    private void startMcpServers(SessionRuntime rt) {
        Session session = rt.session();
        ProjectMcpFile project = ProjectMcpFile.read(session.cwd()).orElse(null);
        List<String> projectProblems = new ArrayList<>();
        boolean hasProjectServers = project != null && !project.unexpanded(projectProblems).isEmpty();
        boolean approved = hasProjectServers && trust.approved(session.cwd(), project);
        McpConfigFiles.Result config = McpConfigFiles.serversFor(approved ? project : null, env, session.mcpServers());
        if (!approved) projectProblems.forEach(w -> notice(rt, "MCP configuration: " + w));
        config.warnings().forEach(w -> notice(rt, "MCP configuration: " + w));
        if (hasProjectServers && !approved) {
            if (trust.declined(session.cwd(), project)) {
                notice(rt, "The project's MCP servers (" + project.file() + ") were not started: you declined this file. "
                        + "Remove the project from " + trust.file() + " to be asked again.");
            } else {
                rt.pendingTrustQuestion(project);
            }
        }
        if (config.servers().isEmpty() && rt.pendingTrustQuestion() == null) return;
        McpServerSet servers = McpServerSet.start(config.servers(), session.cwd(), rt.children(), new McpServerSet.Listener() {
            @Override public void serverFailed(String name, String reason) {
                notice(rt, "MCP server \"" + name + "\" is unavailable: " + reason);
            }
            @Override public void serverReady(String name) { if (rt.announced()) announce(session); }
            @Override public void serverChanged(String name) { if (rt.announced()) announce(session); }
        });
        rt.mcp(servers);
        servers.awaitReady(MCP_READY_WAIT);
    }

    /** {@link #notice(SessionRuntime, String)} for a front door: shown once the client knows the session. */
    public void notice(Session session, String text) {
        SessionRuntime rt = runtimes.get(session.id());
        if (rt != null) notice(rt, text);
    }

    /** A message for the user outside any answer (a server that failed, a bad config file); logged as well. */
    void notice(SessionRuntime rt, String text) {
        rt.notice(text);
    }

    /** Forgets a session (closed or gone); its journal is closed. */
    public void release(String sessionId) {
        SessionRuntime rt = runtimes.remove(sessionId);
        if (rt == null) return;
        if (rt.mcp() != null) rt.mcp().close();
        tools.closed(rt);
        rt.journal().close();
    }

    /** Sent once the client knows the session: the slash commands it can use. */
    public void announce(Session session) {
        SessionRuntime rt = runtimes.get(session.id());
        if (rt == null) return;
        List<String> waiting = rt.markAnnounced();
        rt.client().update(new SessionUpdate.AvailableCommandsUpdate(commands(session)));
        for (String text : waiting) rt.client().update(SessionUpdate.AgentMessageChunk.text("⚠ " + text + "\n"));
        ProjectMcpFile pending = rt.takePendingTrustQuestion();
        if (pending != null) Thread.ofVirtual().name("trust-" + session.id()).start(() -> new ProjectTrustQuestion(this, rt, pending).ask());
    }

    /** Starts the project's servers from the file the user just trusted (the client's own servers keep their names). */
    void startProjectServers(SessionRuntime rt, ProjectMcpFile project) {
        List<String> warnings = new ArrayList<>();
        var definitions = project.servers(env, warnings);
        warnings.forEach(w -> notice(rt, "MCP configuration: " + w));
        if (rt.mcp() != null) rt.mcp().add(definitions);
    }

    /** Built-in commands, the user's prompt templates, and the prompts of the session's MCP servers. */
    public List<SessionUpdate.AvailableCommand> commands(Session session) {
        List<SessionUpdate.AvailableCommand> all = new ArrayList<>(SlashCommands.advertised(SlashCommands.userCommands(session.cwd(), configDir)));
        SessionRuntime rt = runtimes.get(session.id());
        if (rt != null && rt.mcp() != null) all.addAll(rt.mcp().commands());
        return all;
    }

    public SessionMode.State modes(Session session) {
        return new SessionMode.State(session.modeId(), MODES);
    }

    public List<ConfigOption> configOptions(Session session) {
        List<ConfigOption> options = new ArrayList<>();
        List<ConfigOption.Choice> modeChoices = MODES.stream()
                .map(m -> new ConfigOption.Choice(m.id(), m.name(), m.description())).toList();
        options.add(ConfigOption.select(CONFIG_MODE, "Mode", "Permission preset", "mode", session.modeId(), modeChoices));
        ModelCatalog catalog = catalog(session.cwd());
        List<ConfigOption.Choice> models = new ArrayList<>();
        for (ModelChoice c : catalog.choices()) models.add(new ConfigOption.Choice(c.value(), c.displayName(), null));
        String current = session.model();
        if (current != null && models.stream().noneMatch(m -> m.value().equals(current))) {
            models.add(new ConfigOption.Choice(current, current, null));
        }
        if (current == null) return options;
        options.add(ConfigOption.select(CONFIG_MODEL, "Model", null, "model", current, models));
        List<String> efforts = catalog.find(current).map(ModelChoice::reasoningEfforts).orElse(List.of());
        if (!efforts.isEmpty()) {
            List<ConfigOption.Choice> levels = efforts.stream().map(l -> new ConfigOption.Choice(l, l, null)).toList();
            String level = session.thoughtLevel() != null && efforts.contains(session.thoughtLevel()) ? session.thoughtLevel()
                    : efforts.contains("medium") ? "medium" : efforts.get(0);
            options.add(ConfigOption.select(CONFIG_THOUGHT_LEVEL, "Thinking", "Reasoning effort", "thought_level", level, levels));
        }
        return options;
    }

    /**
     * Switches the session to one of {@link #MODES}; any other id is refused with -32602 naming the valid ones
     * (as {@code set_config_option} does), and nothing changes.
     */
    public void setMode(Session session, String modeId) throws JsonRpcException {
        Mode mode = Mode.fromId(modeId).orElseThrow(() -> JsonRpcException.invalidParams("\"" + modeId
                + "\" is not a mode of this agent; the modes are " + String.join(", ", MODES.stream().map(SessionMode::id).toList())));
        session.modeId(mode.id());
        session.permissionMode(mode);
        recordState(session);
        SessionRuntime rt = runtimes.get(session.id());
        if (rt != null) {
            rt.client().update(new SessionUpdate.CurrentModeUpdate(modeId));
            rt.client().update(new SessionUpdate.ConfigOptionUpdate(configOptions(session)));
        }
    }

    public void setConfigOption(Session session, String configId, String value) throws JsonRpcException {
        switch (configId) {
            case CONFIG_MODE -> {
                setMode(session, value);
                return;
            }
            case CONFIG_MODEL -> setModelValue(session, value);
            case CONFIG_THOUGHT_LEVEL -> {
                List<String> efforts = catalog(session.cwd()).find(session.model()).map(ModelChoice::reasoningEfforts).orElse(List.of());
                if (efforts.isEmpty()) throw JsonRpcException.invalidRequest("unknown configId: " + configId);
                if (!efforts.contains(value)) throw JsonRpcException.invalidParams("value must be one of " + efforts);
                session.thoughtLevel(value);
            }
            default -> throw JsonRpcException.invalidRequest("unknown configId: " + configId);
        }
        configChanged(session);
    }

    private void configChanged(Session session) {
        recordState(session);
        SessionRuntime rt = runtimes.get(session.id());
        if (rt != null) rt.client().update(new SessionUpdate.ConfigOptionUpdate(configOptions(session)));
    }

    /** {@code provider/model} (provider lower-cased) or a bare model that keeps the provider. */
    private void setModelValue(Session session, String value) throws JsonRpcException {
        int slash = value.indexOf('/');
        String provider;
        String model;
        if (slash < 0) {
            provider = currentProvider(session);
            model = value.strip();
        } else {
            provider = value.substring(0, slash).strip().toLowerCase(Locale.ROOT);
            model = value.substring(slash + 1).strip();
        }
        if (provider == null || provider.isEmpty() || model.isEmpty()) {
            throw JsonRpcException.invalidParams("value must be \"provider/model\" or \"model\" with neither part empty");
        }
        try {
            catalog(session.cwd()).resolve(provider);
        } catch (UnknownProviderException e) {
            log.info("model switch refused: provider id '{}' ({})", provider, e.getClass().getSimpleName());
            throw JsonRpcException.invalidRequest("cannot resolve provider '" + provider + "'");
        }
        session.model(provider + "/" + model);
    }

    /** _agentao.cn/set_model: a free-text model for the current provider. Returns the active model id. */
    public String setBareModel(Session session, String model) throws JsonRpcException {
        setModelValue(session, model);
        configChanged(session);
        String value = session.model();
        return value.substring(value.indexOf('/') + 1);
    }

    private static String currentProvider(Session session) {
        String v = session.model();
        return v == null ? null : v.substring(0, v.indexOf('/'));
    }

    // ---------------------------------------------------------------- turns

    /** Runs one prompt turn (a slash command, or a conversation with the model) and says why it ended. */
    public StopReason runTurn(Session session, List<ContentBlock> prompt, Cancellation cancel) {
        SessionRuntime rt = runtimes.get(session.id());
        if (rt == null) throw new IllegalStateException("session " + session.id() + " is not open");
        giveTitle(rt, prompt);
        String text = prompt.size() == 1 && prompt.get(0) instanceof ContentBlock.Text t ? t.text() : null;
        SlashCommands.Invocation command = text == null ? null : SlashCommands.parse(text);
        StopReason reason = null;
        if (command != null) reason = runCommand(rt, command, prompt, cancel);
        if (reason == null) reason = turns.run(rt, prompt, cancel);
        recordTurnEnd(rt, reason);
        return reason;
    }

    /** Built-in commands run here; a user command's expansion goes to the model; unknown names return null. */
    private StopReason runCommand(SessionRuntime rt, SlashCommands.Invocation c, List<ContentBlock> prompt, Cancellation cancel) {
        Session session = rt.session();
        switch (c.name()) {
            case "help" -> {
                StringBuilder sb = new StringBuilder("Commands:\n");
                for (SessionUpdate.AvailableCommand a : commands(session)) {
                    sb.append("- `/").append(a.name()).append(a.input() == null ? "" : " <" + a.input().hint() + ">")
                            .append("`: ").append(a.description()).append('\n');
                }
                say(rt, prompt, sb.toString());
                return StopReason.END_TURN;
            }
            case "model" -> {
                if (c.arguments().isEmpty()) {
                    say(rt, prompt, "Current model: `" + session.model() + "`. Available: "
                            + String.join(", ", catalog(session.cwd()).choices().stream().map(ModelChoice::value).toList()));
                    return StopReason.END_TURN;
                }
                try {
                    setModelValue(session, c.arguments());
                    configChanged(session);
                    say(rt, prompt, "Model switched to `" + session.model() + "` for the next turn.");
                } catch (JsonRpcException e) {
                    say(rt, prompt, "Cannot switch model: " + e.getMessage());
                }
                return StopReason.END_TURN;
            }
            case "mode" -> {
                String id = c.arguments();
                try {
                    setMode(session, id);
                    say(rt, prompt, "Mode switched to `" + id + "`.");
                } catch (JsonRpcException e) {
                    say(rt, prompt, "Current mode: `" + session.modeId() + "`. Modes: "
                            + String.join(", ", MODES.stream().map(SessionMode::id).toList()) + ".");
                }
                return StopReason.END_TURN;
            }
            case "compact" -> {
                recordUserPrompt(rt, prompt, true);
                boolean done = compact(rt, currentChoice(session), cancel);
                if (cancel.isCancelled()) return StopReason.CANCELLED;
                String msg = done ? "Older turns were summarised; the conversation continues from the summary."
                        : "Nothing to compact yet.";
                rt.client().update(SessionUpdate.AgentMessageChunk.text(msg));
                recordAgentText(rt, msg);
                return StopReason.END_TURN;
            }
            default -> {
                SlashCommands.UserCommand user = SlashCommands.userCommands(session.cwd(), configDir).get(c.name());
                if (user != null) return turns.run(rt, List.of(ContentBlock.text(user.expand(c.arguments()))), cancel);
                if (rt.mcp() == null || !rt.mcp().hasCommand(c.name())) return null;
                String text;
                try {
                    text = rt.mcp().getPrompt(c.name(), c.arguments(), cancel);
                } catch (CancelledException e) {
                    return StopReason.CANCELLED;
                } catch (McpException e) {
                    say(rt, prompt, "Cannot run /" + c.name() + ": " + e.getMessage());
                    return StopReason.END_TURN;
                }
                return turns.run(rt, List.of(ContentBlock.text(text)), cancel);
            }
        }
    }

    /** A command's answer: recorded with the prompt so a replay shows both. */
    private void say(SessionRuntime rt, List<ContentBlock> prompt, String text) {
        recordUserPrompt(rt, prompt, true);
        rt.client().update(SessionUpdate.AgentMessageChunk.text(text));
        recordAgentText(rt, text);
    }

    private void giveTitle(SessionRuntime rt, List<ContentBlock> prompt) {
        if (!rt.claimTitle()) return;
        String text = prompt.stream().filter(b -> b instanceof ContentBlock.Text).map(b -> ((ContentBlock.Text) b).text())
                .findFirst().orElse("").strip().replaceAll("\\s+", " ");
        if (text.isEmpty()) return;
        String title = text.length() > 80 ? text.substring(0, 79) + "…" : text;
        rt.session().title(title);
        rt.journal().append(RecordTypes.TITLE, Json.object().put("text", title));
        rt.client().update(new SessionUpdate.SessionInfoUpdate(title, Instant.now().toString()));
    }

    void compactIfNeeded(SessionRuntime rt, ModelChoice choice, Cancellation cancel) {
        long window = catalog(rt.session().cwd()).contextWindow(choice);
        if (rt.conversation().estimateTokens() > window * COMPACT_AT) compact(rt, choice, cancel);
    }

    /**
     * Replaces the turns before the latest user message by a model-written summary. Returns false when there
     * is nothing older to summarise or the summary failed (the history is then left as it was).
     */
    boolean compact(SessionRuntime rt, ModelChoice choice, Cancellation cancel) {
        List<ChatMessage> history = rt.conversation().snapshot();
        int lastUser = -1;
        for (int i = history.size() - 1; i >= 0; i--) if (history.get(i) instanceof UserMessage) { lastUser = i; break; }
        if (lastUser <= 0) return false;
        List<ChatMessage> older = history.subList(0, lastUser);
        List<ChatMessage> request = new ArrayList<>();
        request.add(SystemMessage.from("Summarise the conversation below for your own later use: the user's goals, "
                + "decisions, files touched, commands run and their outcomes, and what is still open. Be complete but brief."));
        request.addAll(older);
        request.add(UserMessage.from("Write the summary now."));
        try {
            ModelResponse r = modelClient(rt.session(), choice).stream(new ModelRequest(request), ModelStreamListener.IGNORE, cancel);
            String summary = r.message().text();
            if (summary == null || summary.isBlank()) return false;
            List<ChatMessage> replacement = new ArrayList<>();
            replacement.add(UserMessage.from("Summary of the earlier conversation:\n\n" + summary));
            replacement.add(AiMessage.from("Understood; I will continue from this summary."));
            replacement.addAll(history.subList(lastUser, history.size()));
            rt.conversation().replace(replacement);
            ObjectNode rec = Json.object();
            rec.set("messages", Json.MAPPER.valueToTree(replacement.stream().map(ChatMessageJson::toJson).toList()));
            rt.journal().append(RecordTypes.COMPACTION, rec);
            return true;
        } catch (ModelException e) {
            log.warn("compaction failed: {}", e.kind());
            return false;
        }
    }

    void reportUsage(SessionRuntime rt, ModelChoice choice, TokenCount usage) {
        long used = usage != null && usage.total() > 0 ? usage.total() : rt.conversation().estimateTokens();
        long size = catalog(rt.session().cwd()).contextWindow(choice);
        rt.client().update(new SessionUpdate.UsageUpdate(used, size, null));
    }

    // ---------------------------------------------------------------- records

    /** The user's prompt as it went to the model (it is part of the model history on restore). */
    void recordUserPrompt(SessionRuntime rt, List<ContentBlock> prompt) {
        recordUserPrompt(rt, prompt, false);
    }

    /** {@code local}: a command the agent answered itself; shown on replay, not part of the model history. */
    void recordUserPrompt(SessionRuntime rt, List<ContentBlock> prompt, boolean local) {
        ObjectNode rec = Json.object();
        rec.set("content", ContentBlock.toTree(prompt));
        if (local) rec.put("local", true);
        rt.journal().append(RecordTypes.USER_MESSAGE, rec);
    }

    void recordModelMessage(SessionRuntime rt, ChatMessage message) {
        ObjectNode rec = Json.object();
        rec.put("message", ChatMessageJson.toJson(message));
        rt.journal().append(RecordTypes.MODEL_MESSAGE, rec);
    }

    void recordAgentText(SessionRuntime rt, String text) {
        ObjectNode rec = Json.object();
        rec.set("content", ContentBlock.toTree(ContentBlock.text(text)));
        rt.journal().append(RecordTypes.AGENT_CHUNK, rec);
    }

    void recordThought(SessionRuntime rt, String text) {
        ObjectNode rec = Json.object();
        rec.set("content", ContentBlock.toTree(ContentBlock.text(text)));
        rt.journal().append(RecordTypes.THOUGHT_CHUNK, rec);
    }

    void recordState(Session session) {
        SessionRuntime rt = runtimes.get(session.id());
        if (rt != null) rt.saveState();
    }

    /** The settings snapshot a load restores: model, mode, thought level, remembered permissions. */
    ObjectNode stateRecord(SessionRuntime rt) {
        Session session = rt.session();
        ObjectNode rec = Json.object().put("mode", session.modeId()).put("permissionMode", session.permissionMode().id())
                .put("model", session.model());
        if (session.thoughtLevel() != null) rec.put("thoughtLevel", session.thoughtLevel());
        rec.set("permissions", rt.permissions().toJson());
        return rec;
    }

    void recordTurnEnd(SessionRuntime rt, StopReason reason) {
        rt.journal().append(RecordTypes.TURN_END, Json.object().put("stopReason", reason.wire()));
    }

    @Override
    public void close() {
        for (String id : List.copyOf(runtimes.keySet())) release(id);
    }
}
