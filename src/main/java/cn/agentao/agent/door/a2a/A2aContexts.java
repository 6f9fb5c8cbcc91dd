package cn.agentao.agent.door.a2a;

import cn.agentao.agent.jsonrpc.ErrorCodes;

import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.permission.Mode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Each A2A {@code contextId} is one durable agent session in the same store as editor sessions, and belongs to the
 * caller that uses it: the session behind a context is {@link #sessionId(String, String) named after the caller and the
 * context id}, so another caller naming the same {@code contextId} gets a context of its own, exactly as if the id
 * were unused (nothing tells it the id is in use), and never reaches the first caller's conversation. The local user
 * of a tokenless server is the machine's user: its context id is the session id itself (so an editor can resume it).
 * A new context creates a session, a saved one is reopened with its history, a live one is reused. A {@code contextId}
 * the local user made up becomes the id of a new session (durable too), or, when the store cannot hold such an id, is
 * mapped to a new session for as long as this server runs.
 */
final class A2aContexts {
    /** A context's live session, the host its core talks to, and when it was last used (nanoTime). */
    record Context(String id, Session session, A2aHost host, AtomicLong lastUsed) {
        void touch() { lastUsed.set(System.nanoTime()); }
    }

    private final SessionService sessions;
    private final SessionService.Spec spec;
    private final Mode mode;
    /** Live contexts by session id. */
    private final Map<String, Context> live = new ConcurrentHashMap<>();
    /** Context ids the local user made up that the store cannot hold → the session each got (while the server runs). */
    private final Map<String, String> sessionOf = new ConcurrentHashMap<>();

    A2aContexts(SessionService sessions, Path cwd, Mode mode) {
        this.sessions = sessions;
        this.spec = SessionService.Spec.of(cwd);
        this.mode = mode;
    }

    /**
     * The session behind {@code contextId} for {@code caller}: the context id itself for the local user (or a task
     * stored without an owner); for a token's caller a UUID drawn from a SHA-256 of the caller and the context id, the
     * same on every instance and after a restart, so no record of the owner is needed and none can be forged by naming
     * another's context id.
     */
    static String sessionId(String caller, String contextId) {
        if (caller == null || A2aServer.LOCAL_CALLER.equals(caller)) return contextId;
        byte[] h;
        try {
            h = MessageDigest.getInstance("SHA-256").digest(("a2a-context\0" + caller + "\0" + contextId)
                    .getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        h[6] = (byte) ((h[6] & 0x0f) | 0x80); // version 8: a custom UUID
        h[8] = (byte) ((h[8] & 0x3f) | 0x80); // the RFC 9562 variant
        ByteBuffer b = ByteBuffer.wrap(h);
        return new UUID(b.getLong(), b.getLong()).toString();
    }

    /**
     * {@code caller}'s context {@code contextId}, its session created or reopened as needed; {@code contextId} null
     * starts a new one.
     */
    synchronized Context open(String contextId, String caller) throws A2aException {
        boolean local = A2aServer.LOCAL_CALLER.equals(caller);
        if (contextId == null && !local) contextId = UUID.randomUUID().toString();
        String key = contextId == null ? null : local ? sessionOf.getOrDefault(contextId, contextId) : sessionId(caller, contextId);
        if (key != null) {
            Context c = live.get(key);
            if (c != null) {
                c.touch();
                return c;
            }
        }
        A2aHost host = new A2aHost();
        Session session;
        try {
            if (key != null && isSaved(key)) session = sessions.reopen(key, spec, host, false);
            else if (key != null) session = createWithId(key, host);
            else session = sessions.create(spec, id -> host);
            if (!mode.id().equals(session.modeId())) session.setMode(mode.id());
        } catch (CoreException.Busy e) {
            throw A2aException.invalidRequest("context " + contextId + " is open elsewhere: " + e.getMessage());
        } catch (CoreException e) {
            throw new A2aException(ErrorCodes.INTERNAL_ERROR, e.getMessage());
        }
        session.ready();
        Context c = new Context(contextId != null ? contextId : session.id(), session, host, new AtomicLong(System.nanoTime()));
        if (local && !c.id().equals(session.id())) sessionOf.put(c.id(), session.id());
        live.put(session.id(), c);
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
            live.remove(c.session().id());
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
