package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.Engine;
import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.SessionClient;
import cn.agentao.agent.core.SessionJournal;
import cn.agentao.agent.core.SessionReplay;
import cn.agentao.agent.core.StoreJournal;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.protocol.ClientCapabilities;
import cn.agentao.agent.protocol.ContentBlock;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.protocol.StopReason;
import cn.agentao.agent.store.SessionBusyException;
import cn.agentao.agent.store.SessionNotFoundException;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SessionStoreException;
import cn.agentao.agent.store.SessionWriter;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

/**
 * A session of the engine served in this process for a person at a terminal (interactive or headless): the
 * same store and the same records as an editor's sessions, so either door can reopen what the other started.
 * Until the core offers its protocol-free host interface, this is the small adapter from the engine's
 * {@link SessionClient} to a {@link View}: updates are shown, permission questions go to the view.
 */
public final class LocalSession implements SessionClient, AutoCloseable {
    /** What shows the session to the person. */
    public interface View {
        /** The session's id, before any update of it. */
        default void opened(String sessionId) {}

        void update(SessionUpdate update);

        /** Answers a permission question with one of {@code options}' ids, or null to reject and cancel. */
        String choose(JsonNode toolCall, List<Option> options, Cancellation cancel);

        /** The model call failed; {@code message} is the user-facing reason (the same text follows as a message). */
        default void modelFailed(String message) {}
    }

    /** One answer a permission question offers. */
    public record Option(String id, String name, String kind) {}

    /** Thrown when the session cannot be opened; its message is for the user. */
    public static final class OpenException extends Exception {
        public OpenException(String message) { super(message); }
    }

    private final Engine engine;
    private final Session session;
    private final View view;
    private volatile Session.Turn turn;

    private LocalSession(Engine engine, Session session, View view) {
        this.engine = engine;
        this.session = session;
        this.view = view;
    }

    /**
     * Opens a session in {@code cwd}: new when {@code resume} is null, else the latest of {@code cwd} ("") or the
     * one with that id (or unique prefix). A reopened session's conversation is shown to the view when {@code replay}.
     */
    public static LocalSession open(Engine engine, SessionStore store, Path cwd, String resume, boolean replay, View view)
            throws OpenException {
        if (resume == null) return create(engine, store, cwd, view);
        String id;
        try {
            id = resume.isEmpty()
                    ? store.latestFor(cwd).orElseThrow(() -> new OpenException("there is no saved conversation for " + cwd))
                    : store.resolvePrefix(resume);
        } catch (SessionStoreException | IllegalArgumentException e) {
            throw new OpenException("cannot resume " + resume + ": " + e.getMessage());
        }
        SessionWriter writer;
        try {
            writer = store.openForAppend(id);
        } catch (SessionNotFoundException | IllegalArgumentException e) {
            throw new OpenException("unknown session: " + id);
        } catch (SessionBusyException e) {
            throw new OpenException("session " + id + " is open in another agent process");
        } catch (SessionStoreException e) {
            throw new OpenException("session " + id + " cannot be read: " + e.getMessage());
        }
        try {
            SessionReplay.Restored restored = SessionReplay.restore(store.read(id));
            LocalSession local = new LocalSession(engine, new Session(id, cwd, List.of(), List.of()), view);
            view.opened(id);
            engine.openRestored(local.session, local, new StoreJournal(writer), restored);
            if (replay) restored.updates().forEach(view::update);
            engine.announce(local.session);
            return local;
        } catch (RuntimeException e) {
            engine.release(id);
            writer.close();
            throw new OpenException("session " + id + " cannot be restored: " + e.getClass().getSimpleName());
        }
    }

    private static LocalSession create(Engine engine, SessionStore store, Path cwd, View view) {
        Session session = new Session(UUID.randomUUID().toString(), cwd, List.of(), List.of());
        LocalSession local = new LocalSession(engine, session, view);
        view.opened(session.id());
        SessionJournal journal;
        String unsaved = null;
        try {
            ObjectNode header = Json.object();
            header.putArray("additionalDirectories");
            header.putArray("mcpServers");
            journal = new StoreJournal(store.create(session.id(), cwd, header));
        } catch (SessionStoreException e) {
            journal = SessionJournal.NONE;
            unsaved = "This conversation is not being saved: " + e.getMessage() + ". To keep conversations, "
                    + SessionStore.RELOCATE_HINT + ".";
        }
        engine.open(session, local, journal);
        if (unsaved != null) engine.notice(session, unsaved);
        engine.announce(session);
        return local;
    }

    public Session session() { return session; }

    public String id() { return session.id(); }

    /** Runs one prompt to its end; {@link #cancel} from another thread ends it early. */
    public StopReason prompt(List<ContentBlock> prompt) {
        Session.Turn t = session.tryBeginTurn();
        if (t == null) throw new IllegalStateException("a turn is already running");
        turn = t;
        try {
            return engine.runTurn(session, prompt, t.cancellation());
        } finally {
            turn = null;
            session.endTurn(t);
        }
    }

    /** {@code !command}: runs it under the session's permission and sandbox rules; its output joins the conversation. */
    public StopReason runCommand(String command) {
        Session.Turn t = session.tryBeginTurn();
        if (t == null) throw new IllegalStateException("a turn is already running");
        turn = t;
        try {
            return engine.runUserCommand(session, command, t.cancellation());
        } finally {
            turn = null;
            session.endTurn(t);
        }
    }

    /** Cancels the running turn, if any. */
    public void cancel() { session.cancelTurn(); }

    public void setMode(String mode) throws JsonRpcException { engine.setMode(session, mode); }

    public void setModel(String model) throws JsonRpcException { engine.setConfigOption(session, Engine.CONFIG_MODEL, model); }

    // ---------------------------------------------------------------- SessionClient

    @Override
    public void update(SessionUpdate update) { view.update(update); }

    @Override
    public void modelFailed(String message) { view.modelFailed(message); }

    /** Files and commands are local: no client method but the permission question is ever called. */
    @Override
    public ClientCapabilities capabilities() { return ClientCapabilities.NONE; }

    @Override
    public JsonNode call(String method, ObjectNode params, Cancellation cancel) {
        if (!"session/request_permission".equals(method)) throw new UnsupportedOperationException(method);
        List<Option> options = new java.util.ArrayList<>();
        for (JsonNode o : params.path("options")) {
            options.add(new Option(o.path("optionId").asText(), o.path("name").asText(), o.path("kind").asText()));
        }
        String chosen = view.choose(params.path("toolCall"), options, cancel);
        ObjectNode answer = Json.object();
        ObjectNode outcome = answer.putObject("outcome");
        if (chosen == null) {
            outcome.put("outcome", "cancelled");
            Session.Turn t = turn;
            if (t != null) t.cancellation().cancel();
        } else {
            outcome.put("outcome", "selected").put("optionId", chosen);
        }
        return answer;
    }

    @Override
    public void close() {
        session.close();
        engine.release(session.id());
    }

}
