package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.Engine;
import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.SessionReplay;
import cn.agentao.agent.core.StoreJournal;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.store.SessionBusyException;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SessionStoreException;
import cn.agentao.agent.store.SessionWriter;
import cn.agentao.agent.util.Json;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each A2A {@code contextId} is one durable agent session in the same store as editor sessions (its id is the
 * session id): a new context creates one, a known one is reopened with its history, a live one is reused.
 */
final class A2aContexts {
    /** A context's live session and the client its engine talks to. */
    record Context(Session session, A2aSessionClient client) {
        String id() { return session.id(); }
    }

    private final Engine engine;
    private final SessionStore store;
    private final Path cwd;
    private final Mode mode;
    private final Map<String, Context> live = new ConcurrentHashMap<>();

    A2aContexts(Engine engine, SessionStore store, Path cwd, Mode mode) {
        this.engine = engine;
        this.store = store;
        this.cwd = cwd;
        this.mode = mode;
    }

    /** The context's session, created or reopened as needed; {@code contextId} null starts a new one. */
    synchronized Context open(String contextId) throws A2aException {
        if (contextId != null) {
            Context c = live.get(contextId);
            if (c != null) return c;
        }
        String id = contextId != null ? contextId : UUID.randomUUID().toString();
        A2aSessionClient client = new A2aSessionClient();
        Session session = new Session(id, cwd, List.of(), List.of());
        try {
            if (contextId != null && store.exists(id)) {
                SessionWriter writer = store.openForAppend(id);
                try {
                    SessionReplay.Restored restored = SessionReplay.restore(store.read(id));
                    engine.openRestored(session, client, new StoreJournal(writer), restored);
                } catch (RuntimeException e) {
                    writer.close();
                    throw A2aException.invalidParams("context " + id + " cannot be restored: " + e.getClass().getSimpleName());
                }
            } else {
                engine.open(session, client, new StoreJournal(store.create(id, cwd, Json.object().put("door", "a2a"))));
            }
        } catch (IllegalArgumentException e) {
            throw A2aException.invalidParams("contextId \"" + id + "\" is not usable as a session id: " + e.getMessage());
        } catch (SessionBusyException e) {
            throw A2aException.invalidRequest("context " + id + " is open in another agent process");
        } catch (SessionStoreException e) {
            throw new A2aException(A2aException.INTERNAL_ERROR, "the session store cannot keep context " + id + ": " + e.getMessage());
        }
        session.modeId(mode.id());
        session.permissionMode(mode);
        Context c = new Context(session, client);
        live.put(id, c);
        return c;
    }

    Collection<Context> all() { return List.copyOf(live.values()); }

    /** Closes every live session (their journals are flushed and closed). */
    synchronized void closeAll() {
        for (Context c : live.values()) {
            c.session().close();
            engine.release(c.id());
        }
        live.clear();
    }
}
