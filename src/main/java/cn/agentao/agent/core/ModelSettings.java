package cn.agentao.agent.core;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.childenv.Credentials;
import cn.agentao.agent.childenv.OwnEnviron;
import cn.agentao.agent.config.ConfigJson;
import cn.agentao.agent.core.content.Setting;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.model.ModelCatalog;
import cn.agentao.agent.model.ModelChoice;
import cn.agentao.agent.model.ModelClient;
import cn.agentao.agent.model.UnknownProviderException;
import cn.agentao.agent.model.UserConfigFile;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.trust.TrustedProjects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The configuration sessions read (model catalog and credentials per project, cached) and a session's settings:
 * mode, model and thought level, described as {@link Setting}s and changed here, each change recorded and shown.
 */
final class ModelSettings {
    private static final Logger log = LoggerFactory.getLogger(ModelSettings.class);

    private final Map<String, String> env;
    private final TrustedProjects trust;
    private final Path userConfigJson;
    private volatile UserConfigFile userConfig; // read at start, again when the configuration is reloaded or the file changed
    private volatile String userConfigStamp; // the file's size and modification time when it was last read
    private final Map<String, ModelClient> modelClients = new ConcurrentHashMap<>();
    private volatile Map<Path, ModelCatalog> catalogs = new ConcurrentHashMap<>();
    private volatile Map<Path, Credentials> credentials = new ConcurrentHashMap<>();

    ModelSettings(Map<String, String> env, TrustedProjects trust, ConfigJson userJson) {
        this.env = env;
        this.trust = trust;
        this.userConfigJson = userJson.file();
        this.userConfig = UserConfigFile.of(userJson);
        this.userConfigStamp = stamp(userConfigJson);
    }

    /**
     * The user's config file as it is now: read again only when its size or modification time changed since the last
     * read, so an edit made while the agent runs reaches the next project (or reload) that looks, as it always did,
     * and an unchanged file is never read twice.
     */
    private UserConfigFile userConfig() {
        String now = stamp(userConfigJson);
        if (!now.equals(userConfigStamp)) {
            userConfig = UserConfigFile.read(userConfigJson);
            userConfigStamp = now;
        }
        return userConfig;
    }

    private static String stamp(Path file) {
        try {
            return file == null ? "" : Files.size(file) + "@" + Files.getLastModifiedTime(file).toMillis();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    // ---------------------------------------------------------------- configuration

    ModelCatalog catalog(Path cwd) {
        Path key = cwd == null ? Path.of(System.getProperty("user.dir")) : cwd;
        return catalogs.computeIfAbsent(key, k -> {
            ModelCatalog c = ModelCatalog.load(env, ConfigLocations.standard(k, env, trust.trusted(k)), userConfig());
            c.warnings().forEach(w -> log.warn("configuration: {}", w));
            return c;
        });
    }

    /** What counts as a credential for children in {@code cwd}; also blanked in the agent's own /proc environ. */
    private Credentials credentials(Path cwd) {
        Path key = cwd == null ? Path.of(System.getProperty("user.dir")) : cwd;
        return credentials.computeIfAbsent(key, k -> {
            Credentials c = Credentials.load(env, ConfigLocations.standard(k, env, trust.trusted(k)), catalog(k), userConfig);
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

    boolean configured(Path cwd) { return catalog(cwd).configured(); }

    java.util.List<String> missingVariables(Path cwd) { return catalog(cwd).missingVariables(); }

    String authHelp() { return catalog(null).missingConfigurationHelp(); }

    /** Forgets cached configuration so the next look re-reads environment files and the config file. */
    void reloadConfiguration() {
        userConfig = UserConfigFile.read(userConfigJson);
        userConfigStamp = stamp(userConfigJson);
        catalogs = new ConcurrentHashMap<>();
        credentials = new ConcurrentHashMap<>();
        modelClients.clear();
    }

    /** Forgets the configuration of one project (its trust changed): its next session reads it afresh. */
    void reloadConfiguration(Path cwd) {
        catalogs.remove(cwd);
        modelClients.keySet().removeIf(k -> k.startsWith(cwd + "\n"));
    }

    ModelChoice currentChoice(Session session) {
        ModelCatalog catalog = catalog(session.cwd());
        return catalog.find(session.model()).or(catalog::defaultChoice)
                .orElseThrow(() -> new IllegalStateException("no model configured"));
    }

    /** The session's model for one turn, looked up once (see {@link TurnModel}). */
    TurnModel forTurn(Session session) {
        ModelCatalog catalog = catalog(session.cwd());
        ModelChoice choice = currentChoice(session);
        ModelClient client = modelClients.computeIfAbsent(session.cwd() + "\n" + choice.value(), k -> catalog.client(choice));
        String level = session.thoughtLevel();
        String effort = choice.supportsReasoningEffort() && level != null && choice.reasoningEfforts().contains(level) ? level : null;
        return new TurnModel(choice, client, effort, catalog.contextWindow(choice), catalog.price(choice).orElse(null));
    }

    /** A new session starts on the default model. */
    void applyDefaults(Session session) {
        if (session.model() == null) catalog(session.cwd()).defaultChoice().ifPresent(c -> session.model(c.value()));
    }

    /** A restored session keeps its settings (a model no longer configured falls back to the default). */
    void restore(Session session, EngineRecord.State state) {
        if (state == null) return;
        if (state.mode() != null) Mode.fromId(state.mode()).ifPresent(m -> session.modeId(m.id()));
        if (state.permissionMode() != null) Mode.fromId(state.permissionMode()).ifPresent(session::permissionMode);
        if (state.model() != null && catalog(session.cwd()).find(state.model()).isPresent()) session.model(state.model());
        if (state.thoughtLevel() != null) session.thoughtLevel(state.thoughtLevel());
    }

    // ---------------------------------------------------------------- settings

    List<Setting> describe(Session session) {
        List<Setting> options = new ArrayList<>();
        List<Setting.Choice> modeChoices = Arrays.stream(Mode.values())
                .map(m -> new Setting.Choice(m.id(), m.displayName(), m.description())).toList();
        options.add(new Setting(Setting.MODE, "Mode", "Permission preset", "mode", session.modeId(), modeChoices));
        ModelCatalog catalog = catalog(session.cwd());
        List<Setting.Choice> models = new ArrayList<>();
        for (ModelChoice c : catalog.choices()) models.add(new Setting.Choice(c.value(), c.displayName(), null));
        String current = session.model();
        if (current != null && models.stream().noneMatch(m -> m.value().equals(current))) {
            models.add(new Setting.Choice(current, current, null));
        }
        if (current == null) return options;
        options.add(new Setting(Setting.MODEL, "Model", null, "model", current, models));
        List<String> efforts = catalog.find(current).map(ModelChoice::reasoningEfforts).orElse(List.of());
        if (!efforts.isEmpty()) {
            List<Setting.Choice> levels = efforts.stream().map(l -> new Setting.Choice(l, l, null)).toList();
            String level = session.thoughtLevel() != null && efforts.contains(session.thoughtLevel()) ? session.thoughtLevel()
                    : efforts.contains("medium") ? "medium" : efforts.get(0);
            options.add(new Setting(Setting.THOUGHT_LEVEL, "Thinking", "Reasoning effort", "thought_level", level, levels));
        }
        return options;
    }

    /** The mode ids, for messages. */
    static String modeIds() {
        return String.join(", ", Arrays.stream(Mode.values()).map(Mode::id).toList());
    }

    /**
     * Switches the session to one of the modes; any other id is refused naming the valid ones, and nothing changes.
     */
    void setMode(Session session, String modeId) throws CoreException.InvalidArgument {
        Mode mode = Mode.fromId(modeId).orElseThrow(() -> new CoreException.InvalidArgument("\"" + modeId
                + "\" is not a mode of this agent; the modes are " + modeIds()));
        session.modeId(mode.id());
        session.permissionMode(mode);
        SessionRecords.state(session);
        session.emit(new AgentEvent.ModeChanged(modeId));
        session.emit(new AgentEvent.SettingsChanged(describe(session)));
    }

    void set(Session session, String settingId, String value) throws CoreException {
        switch (settingId) {
            case Setting.MODE -> {
                setMode(session, value);
                return;
            }
            case Setting.MODEL -> setModelValue(session, value);
            case Setting.THOUGHT_LEVEL -> {
                List<String> efforts = catalog(session.cwd()).find(session.model()).map(ModelChoice::reasoningEfforts).orElse(List.of());
                if (efforts.isEmpty()) throw new CoreException.NotFound("unknown configId: " + settingId);
                if (!efforts.contains(value)) throw new CoreException.InvalidArgument("value must be one of " + efforts);
                session.thoughtLevel(value);
            }
            default -> throw new CoreException.NotFound("unknown configId: " + settingId);
        }
        changed(session);
    }

    /** A free-text model for the current provider (or {@code provider/model}). Returns the active model id. */
    String setBareModel(Session session, String model) throws CoreException {
        setModelValue(session, model);
        changed(session);
        String value = session.model();
        return value.substring(value.indexOf('/') + 1);
    }

    /** {@code /model ARG}: as {@link #setBareModel}. */
    void setModel(Session session, String value) throws CoreException {
        setModelValue(session, value);
        changed(session);
    }

    private void changed(Session session) {
        SessionRecords.state(session);
        session.emit(new AgentEvent.SettingsChanged(describe(session)));
    }

    /** {@code provider/model} (provider lower-cased) or a bare model that keeps the provider. */
    private void setModelValue(Session session, String value) throws CoreException {
        int slash = value.indexOf('/');
        String provider;
        String model;
        if (slash < 0) {
            String v = session.model();
            provider = v == null ? null : v.substring(0, v.indexOf('/'));
            model = value.strip();
        } else {
            provider = value.substring(0, slash).strip().toLowerCase(Locale.ROOT);
            model = value.substring(slash + 1).strip();
        }
        if (provider == null || provider.isEmpty() || model.isEmpty()) {
            throw new CoreException.InvalidArgument("value must be \"provider/model\" or \"model\" with neither part empty");
        }
        try {
            catalog(session.cwd()).resolve(provider);
        } catch (UnknownProviderException e) {
            log.info("model switch refused: provider id '{}' ({})", provider, e.getClass().getSimpleName());
            throw new CoreException.NotFound("cannot resolve provider '" + provider + "'");
        }
        session.model(provider + "/" + model);
    }
}
