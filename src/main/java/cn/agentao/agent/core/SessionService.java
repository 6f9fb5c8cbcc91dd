package cn.agentao.agent.core;

import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.tool.Connector;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.core.repository.Page;
import cn.agentao.agent.core.repository.SessionBusyException;
import cn.agentao.agent.core.repository.SessionExistsException;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionNotFoundException;
import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.core.repository.StoreUnavailableException;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.core.repository.StoredSession;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The one owner of sessions: creates them, reopens saved ones (replaying them to the host when asked), lists,
 * closes and deletes them, and keeps the one registry of the sessions live in this process. Every front door
 * goes through here; none keeps sessions of its own.
 */
public final class SessionService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SessionService.class);

    /** Where a session works: its directory, more workspace roots, and the MCP servers the door asks for. */
    public record Spec(Path cwd, List<Path> additionalDirectories, List<McpServerConfig> mcpServers) {
        public Spec {
            additionalDirectories = additionalDirectories == null ? List.of() : List.copyOf(additionalDirectories);
            mcpServers = mcpServers == null ? List.of() : List.copyOf(mcpServers);
        }

        public static Spec of(Path cwd) { return new Spec(cwd, List.of(), List.of()); }
    }

    private final Engine engine;
    private final SessionRepository store;
    private final ConcurrentHashMap<String, Session> live = new ConcurrentHashMap<>();

    public SessionService(Engine engine, SessionRepository store) {
        this.engine = engine;
        this.store = store;
        engine.checkpointsIn(id -> {
            try {
                return store.checkpointDirectory(id);
            } catch (RuntimeException e) { // not an id the store can hold, a store that cannot be used
                return Optional.empty();
            }
        });
    }

    /** The process-wide parts (configuration, tools) sessions share. */
    public Engine engine() { return engine; }

    // ---------------------------------------------------------------- configuration

    /** Whether a model provider is configured for sessions in {@code cwd} (null: the process's directory). */
    public boolean configured(Path cwd) { return engine.settings().configured(cwd); }

    /** What the environment's model provider still needs for {@code cwd}, e.g. {@code DEEPSEEK_API_KEY}; may be empty. */
    public java.util.List<String> missingVariables(Path cwd) { return engine.settings().missingVariables(cwd); }

    /** {@link CoreException.AuthRequired}, saying how to configure one, unless a model provider is configured for {@code cwd}. */
    public void requireConfigured(Path cwd) throws CoreException.AuthRequired {
        if (!configured(cwd)) {
            throw new CoreException.AuthRequired("Authentication required: no model provider is configured. " + authHelp());
        }
    }

    /** How to configure a model provider, for a user who has none. */
    public String authHelp() { return engine.settings().authHelp(); }

    /** Re-reads environment files and the config file (after a login, say). */
    public void reloadConfiguration() { engine.settings().reloadConfiguration(); }

    /** The modes (permission presets) a session can be in. */
    public List<Mode> modes() { return List.of(Mode.values()); }

    /** Adds a tool source for every session (after the built-ins; its tools join at each session's next model call). */
    public void addToolSource(ToolSource source) { engine.addToolSource(source); }

    /** Registers a connector at start: every session opened from now on gets what it gives (see {@link Connector}). */
    public void addConnector(Connector connector) { engine.addConnector(connector); }

    public void removeToolSource(ToolSource source) { engine.removeToolSource(source); }

    /** Registers the user's hooks at start: every session runs them at its events (see {@link cn.agentao.agent.core.hook.Hooks}). */
    public void useHooks(cn.agentao.agent.core.hook.Hooks hooks) { engine.hooks(hooks); }

    // ---------------------------------------------------------------- sessions

    /**
     * A new session, saved as it goes (or, when the store cannot be written, unsaved with a notice saying so). Its
     * MCP servers are started (waiting a moment for them). Call {@link Session#ready()} once the door's user
     * knows the session. {@code hostForId} makes the session's host given its new id.
     */
    public Session create(Spec spec, Function<String, ? extends Host> hostForId) throws CoreException {
        String id = UUID.randomUUID().toString();
        return create(id, spec, hostForId.apply(id), false);
    }

    /**
     * A new session under an id the door chose (A2A: a context id its client made up), so it stays one durable
     * session across restarts. Refused when a session with that id is saved or live ({@link CoreException.Busy};
     * reopen it instead) or when the id is not one the repository can hold ({@link CoreException.InvalidArgument}).
     */
    public Session createWithId(String id, Spec spec, Host host) throws CoreException {
        if (live.containsKey(id)) throw new CoreException.Busy("session " + id + " is already open");
        return create(id, spec, host, true);
    }

    private Session create(String id, Spec spec, Host host, boolean chosenId) throws CoreException {
        requireConfigured(spec.cwd());
        SessionJournal journal;
        String unsaved = null;
        try {
            journal = journal(store.create(id, spec.cwd(), header(spec)));
        } catch (SessionExistsException e) {
            throw new CoreException.Busy("session " + id + " already exists; reopen it instead");
        } catch (IllegalArgumentException e) {
            if (!chosenId) throw e;
            throw new CoreException.InvalidArgument("\"" + id + "\" cannot be a session id: " + e.getMessage());
        } catch (StoreUnavailableException e) { // the store chosen cannot be used at all: say so now, not after the talk
            throw new CoreException.StorageFailed(e.getMessage() + "; " + store.relocateHint(), e);
        } catch (SessionStoreException e) {
            // an unusable store must not make the agent unusable: run this session without persistence, and say so
            journal = SessionJournal.NONE;
            unsaved = "This conversation is not being saved: " + e.getMessage() + ". To keep conversations, "
                    + store.relocateHint() + ".";
        }
        Session session = new Session(id, spec, host, engine, journal);
        engine.open(session, null);
        journal.release(); // a shared store's lease is taken again by each turn
        if (unsaved != null) session.notice(unsaved);
        register(session);
        return session;
    }

    /** The journal of a session whose lease is held: kept while it is open, or, in a shared store, per turn. */
    private SessionJournal journal(SessionLease held) {
        return store.shared() ? new TurnLeaseJournal(store, held) : new StoreJournal(held);
    }

    /**
     * Reopens a saved session of a shared store: no lease is kept (each turn takes it), so the session may be live
     * on another instance too; whichever runs a turn reads first what the other added.
     */
    private Session reopenShared(String id, Spec spec, Host host, boolean replay) throws CoreException {
        if (!saved(id, () -> store.exists(id))) throw CoreException.NotFound.session(id);
        SessionReplay.Restored restored = saved(id, () -> SessionReplay.restore(store, id));
        Session session = new Session(id, spec, host, engine, new TurnLeaseJournal(store, id, restored.lastSeq()));
        try {
            engine.open(session, restored);
        } catch (RuntimeException e) {
            session.close();
            log.error("session {} could not be restored", id, e);
            throw new CoreException("session " + id + " cannot be restored: " + e.getClass().getSimpleName(), e);
        }
        if (replay) {
            for (AgentEvent e : restored.events()) host.emit(e);
            if (session.title() != null) host.emit(new AgentEvent.TitleChanged(session.title(), null));
        }
        if (live.putIfAbsent(id, session) != null) {
            session.close();
            throw new CoreException.Busy("session " + id + " is already open");
        }
        session.onClose(() -> live.remove(id, session));
        return session;
    }

    /**
     * Reopens a saved session: takes its lock (refused while it is live anywhere), restores model, mode,
     * permissions and history, and, with {@code replay}, shows the conversation again through {@code host}
     * before returning.
     */
    public Session reopen(String id, Spec spec, Host host, boolean replay) throws CoreException {
        if (live.containsKey(id)) throw new CoreException.Busy("session " + id + " is already open");
        if (store.shared()) return reopenShared(id, spec, host, replay);
        SessionLease writer;
        String readOnly = null;
        try {
            writer = store.lease(id);
        } catch (IllegalArgumentException e) { // not an id the store can hold
            throw CoreException.NotFound.session(id);
        } catch (SessionStoreException e) {
            if (e instanceof SessionBusyException || e instanceof SessionNotFoundException) throw saved(id, e);
            // the store can be read but not written (a read-only mount, no permission): shown, but nothing more is saved
            if (!saved(id, () -> store.exists(id))) throw CoreException.NotFound.session(id);
            writer = null;
            readOnly = e.getMessage();
        }
        Session session = null;
        try {
            SessionReplay.Restored restored = readOnly == null ? SessionReplay.restore(store, id)
                    : saved(id, () -> SessionReplay.restore(store, id));
            session = new Session(id, spec, host, engine, writer != null ? new StoreJournal(writer)
                    : new UnsavedJournal(readOnly, store.relocateHint()));
            engine.open(session, restored);
            if (replay) {
                for (AgentEvent e : restored.events()) host.emit(e);
                if (session.title() != null) host.emit(new AgentEvent.TitleChanged(session.title(), null));
            }
        } catch (RuntimeException e) {
            if (session != null) session.close();
            else if (writer != null) writer.close();
            log.error("session {} could not be restored", id, e);
            throw new CoreException("session " + id + " cannot be restored: " + e.getClass().getSimpleName(), e);
        }
        if (live.putIfAbsent(id, session) != null) {
            session.close();
            throw new CoreException.Busy("session " + id + " is already open");
        }
        Session registered = session;
        session.onClose(() -> live.remove(id, registered));
        return session;
    }

    /**
     * A new session with the history of saved session {@code parentId} up to now, saved at once and independent
     * afterwards (the parent may be live, here or in another process, or closed): the parent's records are copied
     * into the new log in one write, so settings, title, permissions and token totals come along; the header
     * names the parent ({@code forkedFrom}).
     */
    public Session fork(String parentId, Spec spec, Function<String, ? extends Host> hostForId) throws CoreException {
        requireConfigured(spec.cwd());
        StoredSession parent = saved(parentId, () -> store.read(parentId));
        String id = UUID.randomUUID().toString();
        ObjectNode header = header(spec);
        List<ObjectNode> records = parent.records();
        header.putObject("forkedFrom").put("sessionId", parentId)
                .put("seq", records.isEmpty() ? 0 : records.get(records.size() - 1).path("seq").asLong());
        SessionLease writer;
        try {
            writer = store.create(id, spec.cwd(), header);
        } catch (SessionStoreException e) {
            throw new CoreException.StorageFailed("cannot save the fork: " + e.getMessage() + "; " + store.relocateHint(), e);
        }
        Session session = null;
        try {
            writer.appendCopies(records);
            SessionReplay.Restored restored = SessionReplay.restore(parentId, records);
            session = new Session(id, spec, hostForId.apply(id), engine, journal(writer));
            engine.open(session, restored);
            session.journal().release();
        } catch (RuntimeException e) {
            if (session != null) session.close();
            else writer.close();
            try {
                store.delete(id);
            } catch (RuntimeException gone) {
                log.warn("the unfinished fork {} could not be removed: {}", id, gone.toString());
            }
            log.error("session {} could not be forked", parentId, e);
            throw new CoreException("session " + parentId + " cannot be forked: " + e.getClass().getSimpleName(), e);
        }
        register(session);
        return session;
    }

    /** The id of the most recently used saved session of {@code cwd}; {@link CoreException.NotFound} when there is none. */
    public String latest(Path cwd) throws CoreException {
        try {
            return store.latestFor(cwd).orElseThrow(() -> new CoreException.NotFound("there is no saved session for this directory"));
        } catch (SessionStoreException e) {
            throw new CoreException.StorageFailed(e.getMessage() + "; " + store.relocateHint(), e);
        }
    }

    /** The full id of a saved session given its id or a unique prefix of it. */
    public String resolve(String idOrPrefix) throws CoreException {
        try {
            return store.resolvePrefix(idOrPrefix);
        } catch (SessionNotFoundException e) {
            throw new CoreException.NotFound(e.getMessage());
        } catch (SessionStoreException e) {
            throw new CoreException(e.getMessage(), e);
        }
    }

    /** A page of saved sessions, newest first, of {@code cwd} (null: all); {@code cursor} from the previous page. */
    public Page<SessionSummary> list(Path cwd, String cursor, int limit) throws CoreException {
        try {
            return store.list(cwd, cursor, limit);
        } catch (IllegalArgumentException e) {
            throw new CoreException.InvalidArgument("cursor is not one this agent gave out");
        } catch (SessionStoreException e) {
            throw new CoreException.StorageFailed(e.getMessage() + "; " + store.relocateHint(), e);
        }
    }

    /** The live session with this id, if any. */
    public Optional<Session> find(String id) { return Optional.ofNullable(live.get(id)); }

    /** The live session with this id, or {@link CoreException.NotFound} "unknown sessionId: …". */
    public Session require(String id) throws CoreException.NotFound {
        Session s = live.get(id);
        if (s == null) throw CoreException.NotFound.session(id);
        return s;
    }

    /** Whether a session with this id is live in this process. */
    public boolean isLive(String id) { return live.containsKey(id); }

    /** The repository, when several instances share it (PostgreSQL): a door keeps what they share beside it; else empty. */
    public Optional<SessionRepository> sharedRepository() {
        return store.shared() ? Optional.of(store) : Optional.empty();
    }

    /**
     * Whether saved session {@code id} is leased by no one, here or on another instance: no turn of it runs anywhere
     * (so a task said to be running in it was left by an instance that stopped). False when unsure or not saved.
     */
    public boolean isIdleEverywhere(String id) {
        try {
            return store.exists(id) && !store.isLive(id);
        } catch (RuntimeException e) { // unreachable store, or not an id it can hold
            return false;
        }
    }

    /** The sessions live in this process. */
    public Collection<Session> live() { return List.copyOf(live.values()); }

    /** Closes a live session (it stays saved); {@link CoreException.NotFound} when none is live with that id. */
    public void close(String id) throws CoreException.NotFound {
        require(id).close();
    }

    /** Deletes a saved session, closing it first when it is live here. */
    public void delete(String id) throws CoreException {
        Session s = live.get(id);
        if (s != null) s.close();
        try {
            if (!store.delete(id)) throw CoreException.NotFound.session(id);
        } catch (SessionBusyException e) {
            throw new CoreException.Busy("session " + id + " is open in another agent process");
        } catch (SessionStoreException e) {
            throw new CoreException("session " + id + " cannot be deleted: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) { // not an id the store can hold
            throw CoreException.NotFound.session(id);
        }
    }

    /** Cancels every running turn (a door going away), without closing the sessions. */
    public void cancelAll() { live.values().forEach(Session::cancel); }

    /** Closes every live session. */
    @Override
    public void close() {
        live.values().forEach(Session::close);
    }

    /** A store call on saved session {@code id}, its failures in the core's words. */
    private static <T> T saved(String id, java.util.function.Supplier<T> call) throws CoreException {
        try {
            return call.get();
        } catch (RuntimeException e) {
            throw saved(id, e);
        }
    }

    /** The store's refusal {@code e} about session {@code id}, in the core's words (anything else is thrown on). */
    private static CoreException saved(String id, RuntimeException e) {
        if (e instanceof SessionNotFoundException || e instanceof IllegalArgumentException) { // IAE: not an id the store can hold
            return CoreException.NotFound.session(id);
        }
        if (e instanceof SessionBusyException) return new CoreException.Busy("session " + id + " is open in another agent process");
        if (e instanceof SessionStoreException) return new CoreException("session " + id + " cannot be read: " + e.getMessage(), e);
        throw e;
    }

    private void register(Session session) {
        live.put(session.id(), session);
        session.onClose(() -> live.remove(session.id(), session));
    }

    /** What the store's header keeps besides id and cwd: the extra roots and the MCP servers' names (never their secrets). */
    private static ObjectNode header(Spec s) {
        ObjectNode h = Json.object();
        ArrayNode roots = h.putArray("additionalDirectories");
        s.additionalDirectories().forEach(d -> roots.add(d.toString()));
        ArrayNode mcp = h.putArray("mcpServers");
        s.mcpServers().forEach(m -> mcp.addObject().put("name", m.name()).put("type", m.type()));
        return h;
    }
}
