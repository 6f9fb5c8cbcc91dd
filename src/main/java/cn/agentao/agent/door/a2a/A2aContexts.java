package cn.agentao.agent.door.a2a;

import cn.agentao.agent.jsonrpc.ErrorCodes;

import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.permission.Mode;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Each A2A {@code contextId} is one durable agent session in the same store as editor sessions (its id is the
 * session id): a new context creates one, a saved one is reopened with its history, a live one is reused. A
 * {@code contextId} the caller made up becomes the id of a new session (durable too), or, when the store cannot
 * hold such an id, is mapped to a new session for as long as this server runs.
 */
final class A2aContexts {
    /** A context's live session, the host its core talks to, and when it was last used (nanoTime). */
    record Context(String id, Session session, A2aHost host, AtomicLong lastUsed) {
        void touch() { lastUsed.set(System.nanoTime()); }
    }

    private final SessionService sessions;
    private final SessionService.Spec spec;
    private final Mode mode;
    private final Map<String, Context> live = new ConcurrentHashMap<>();
    /** Context ids a caller made up → the session each got (kept while the server runs, across idle closes). */
    private final Map<String, String> sessionOf = new ConcurrentHashMap<>();

    A2aContexts(SessionService sessions, Path cwd, Mode mode) {
        this.sessions = sessions;
        this.spec = SessionService.Spec.of(cwd);
        this.mode = mode;
    }

    /** The context's session, created or reopened as needed; {@code contextId} null starts a new one. */
    synchronized Context open(String contextId) throws A2aException {
        if (contextId != null) {
            Context c = live.get(contextId);
            if (c != null) {
                c.touch();
                return c;
            }
        }
        A2aHost host = new A2aHost();
        Session session;
        String saved = contextId == null ? null : sessionOf.getOrDefault(contextId, contextId);
        try {
            if (saved != null && isSaved(saved)) session = sessions.reopen(saved, spec, host, false);
            else if (contextId != null && saved.equals(contextId)) session = createWithId(contextId, host);
            else session = sessions.create(spec, id -> host);
            if (!mode.id().equals(session.modeId())) session.setMode(mode.id());
        } catch (CoreException.Busy e) {
            throw A2aException.invalidRequest("context " + contextId + " is open elsewhere: " + e.getMessage());
        } catch (CoreException e) {
            throw new A2aException(ErrorCodes.INTERNAL_ERROR, e.getMessage());
        }
        session.ready();
        Context c = new Context(contextId != null ? contextId : session.id(), session, host, new AtomicLong(System.nanoTime()));
        if (!c.id().equals(session.id())) sessionOf.put(c.id(), session.id());
        live.put(c.id(), c);
        return c;
    }

    /** A caller's own context id becomes the session id when the store can hold it; otherwise it is mapped. */
    private Session createWithId(String contextId, A2aHost host) throws CoreException {
        try {
            return sessions.createWithId(contextId, spec, host);
        } catch (CoreException.InvalidArgument e) {
            return sessions.create(spec, id -> host);
        }
    }

    private boolean isSaved(String id) {
        try {
            return sessions.resolve(id).equals(id);
        } catch (CoreException | RuntimeException e) { // RuntimeException: not an id the store can hold
            return false;
        }
    }

    Collection<Context> all() { return List.copyOf(live.values()); }

    /**
     * Closes the sessions of contexts unused for {@code idle} with no turn running (a task waiting for an answer
     * keeps its turn): their memory and their lock are freed, so an editor can open them; the next message
     * reopens them. Returns how many were closed.
     */
    synchronized int closeIdle(Duration idle) {
        long now = System.nanoTime();
        int closed = 0;
        for (Context c : List.copyOf(live.values())) {
            if (now - c.lastUsed().get() < idle.toNanos() || c.session().hasActiveTurn()) continue;
            live.remove(c.id());
            c.session().close();
            closed++;
        }
        return closed;
    }

    /** Closes every live session (their journals are flushed and closed). */
    synchronized void closeAll() {
        for (Context c : live.values()) c.session().close();
        live.clear();
    }
}
