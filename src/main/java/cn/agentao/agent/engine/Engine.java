package cn.agentao.agent.engine;

import cn.agentao.agent.jsonrpc.ErrorCodes;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.model.ModelCatalog;
import cn.agentao.agent.model.ModelChoice;
import cn.agentao.agent.model.UnknownProviderException;
import cn.agentao.agent.protocol.ConfigOption;
import cn.agentao.agent.protocol.ContentBlock;
import cn.agentao.agent.protocol.SessionMode;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.protocol.StopReason;
import cn.agentao.agent.session.Session;
import cn.agentao.agent.util.Cancellation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one engine behind every front door: session settings (mode, model), and the turn loop. Front doors
 * own transport and validation; the engine owns behaviour.
 */
public final class Engine implements AutoCloseable {
    public static final String AUTH_METHOD_ID = "model-provider-env";
    public static final String CONFIG_MODEL = "model";
    public static final String CONFIG_MODE = "mode";
    public static final String CONFIG_THOUGHT_LEVEL = "thought_level";

    /** What this build truthfully supports, advertised in initialize. */
    public record Features(boolean loadSession, boolean sessionStore, boolean mcpHttp, boolean mcpSse) {}

    private static final List<SessionMode> MODES = List.of(
            new SessionMode("read-only", "Read only", "Reads and searches; every write and non-read-only command is denied."),
            new SessionMode("workspace-write", "Workspace write", "Edits files inside the workspace; asks before other commands."),
            new SessionMode("full-access", "Full access", "Runs commands and edits without asking, except unrecoverable ones and paths outside the workspace."),
            new SessionMode("plan", "Plan", "Reads and plans; makes no changes."));
    private static final List<String> THOUGHT_LEVELS = List.of("low", "medium", "high");

    private final Map<String, String> env;
    private final Path configDir;
    private final Features features;
    private final Map<String, SessionClient> clients = new ConcurrentHashMap<>();
    private volatile Map<Path, ModelCatalog> catalogs = new ConcurrentHashMap<>();

    public Engine(Map<String, String> env, Path configDir, Features features) {
        this.env = env;
        this.configDir = configDir;
        this.features = features;
    }

    public Features features() { return features; }

    // ---------------------------------------------------------------- configuration

    private ModelCatalog catalog(Path cwd) {
        Path key = cwd == null ? Path.of("") : cwd;
        return catalogs.computeIfAbsent(key, k -> ModelCatalog.load(env, cwd, configDir));
    }

    public boolean configured(Path cwd) { return catalog(cwd).configured(); }

    public String authHelp() { return catalog(null).missingConfigurationHelp(); }

    public JsonRpcException authRequired() {
        return new JsonRpcException(ErrorCodes.AUTH_REQUIRED, "Authentication required: no model provider is configured. " + authHelp());
    }

    /** Forgets cached configuration so the next look re-reads environment files and the config file. */
    public void reloadConfiguration() { catalogs = new ConcurrentHashMap<>(); }

    // ---------------------------------------------------------------- sessions

    /** Prepares a new session's settings and remembers how to reach its client. */
    public void open(Session session, SessionClient client) {
        catalog(session.cwd()).defaultChoice().ifPresent(c -> session.model(c.value()));
        clients.put(session.id(), client);
    }

    /** Sent once the client knows the session: the slash commands it can use. */
    public void announce(Session session, SessionClient client) {
        client.update(new SessionUpdate.AvailableCommandsUpdate(commands(session)));
    }

    public List<SessionUpdate.AvailableCommand> commands(Session session) {
        return List.of(
                new SessionUpdate.AvailableCommand("compact", "Summarise older turns to free context", null),
                new SessionUpdate.AvailableCommand("model", "Switch model for the next turn", new SessionUpdate.CommandInput("provider/model")),
                new SessionUpdate.AvailableCommand("mode", "Switch permission mode", new SessionUpdate.CommandInput("read-only | workspace-write | full-access | plan")),
                new SessionUpdate.AvailableCommand("help", "List the commands", null));
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
        if (current != null) options.add(ConfigOption.select(CONFIG_MODEL, "Model", null, "model", current, models));
        if (current != null && supportsThoughtLevel(session)) {
            List<ConfigOption.Choice> levels = THOUGHT_LEVELS.stream().map(l -> new ConfigOption.Choice(l, l, null)).toList();
            options.add(ConfigOption.select(CONFIG_THOUGHT_LEVEL, "Thinking", "Reasoning effort", "thought_level",
                    session.thoughtLevel() == null ? "medium" : session.thoughtLevel(), levels));
        }
        return options;
    }

    private boolean supportsThoughtLevel(Session session) {
        return catalog(session.cwd()).choices().stream()
                .anyMatch(c -> c.value().equals(session.model()) && c.supportsReasoningEffort());
    }

    public void setMode(Session session, String modeId) {
        session.modeId(modeId);
        SessionClient client = clients.get(session.id());
        if (client != null) {
            client.update(new SessionUpdate.CurrentModeUpdate(modeId));
            client.update(new SessionUpdate.ConfigOptionUpdate(configOptions(session)));
        }
    }

    public void setConfigOption(Session session, String configId, String value) throws JsonRpcException {
        switch (configId) {
            case CONFIG_MODE -> {
                if (MODES.stream().noneMatch(m -> m.id().equals(value))) {
                    throw JsonRpcException.invalidParams("value \"" + value + "\" is not a mode of this agent");
                }
                setMode(session, value);
                return;
            }
            case CONFIG_MODEL -> setModelValue(session, value);
            case CONFIG_THOUGHT_LEVEL -> {
                if (!supportsThoughtLevel(session)) throw JsonRpcException.invalidRequest("unknown configId: " + configId);
                if (!THOUGHT_LEVELS.contains(value)) throw JsonRpcException.invalidParams("value must be one of " + THOUGHT_LEVELS);
                session.thoughtLevel(value);
            }
            default -> throw JsonRpcException.invalidRequest("unknown configId: " + configId);
        }
        SessionClient client = clients.get(session.id());
        if (client != null) client.update(new SessionUpdate.ConfigOptionUpdate(configOptions(session)));
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
            org.slf4j.LoggerFactory.getLogger(Engine.class).info("model switch refused: provider id '{}' ({})", provider, e.getClass().getSimpleName());
            throw JsonRpcException.invalidRequest(e.getMessage());
        }
        session.model(provider + "/" + model);
    }

    /** _agentao.cn/set_model: a free-text model for the current provider. Returns the active model id. */
    public String setBareModel(Session session, String model) throws JsonRpcException {
        setModelValue(session, model);
        SessionClient client = clients.get(session.id());
        if (client != null) client.update(new SessionUpdate.ConfigOptionUpdate(configOptions(session)));
        String value = session.model();
        return value.substring(value.indexOf('/') + 1);
    }

    private static String currentProvider(Session session) {
        String v = session.model();
        return v == null ? null : v.substring(0, v.indexOf('/'));
    }

    // ---------------------------------------------------------------- turns

    public StopReason runTurn(Session session, List<ContentBlock> prompt, Cancellation cancel) {
        SessionClient client = clients.get(session.id());
        client.update(SessionUpdate.AgentMessageChunk.text("The turn loop is not wired to a model yet."));
        return cancel.isCancelled() ? StopReason.CANCELLED : StopReason.END_TURN;
    }

    @Override
    public void close() {
        clients.clear();
    }
}
