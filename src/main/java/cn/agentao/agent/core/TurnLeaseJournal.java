package cn.agentao.agent.core;

import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.core.repository.SessionBusyException;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.core.repository.SessionStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A session's journal in a shared repository (several instances serve it): the session's lease is taken when a
 * turn starts ({@link #acquire}) and let go once the turn's records are saved ({@link #release}), so between turns
 * any instance can continue the conversation. While the lease is held, records go through a {@link StoreJournal}
 * on it. A write outside a turn (a settings change) takes the lease just for itself, and is not saved (the user
 * is told) while another instance holds it. The journal remembers the seq it last saw, so a turn that finds the
 * session moved on (another instance answered meanwhile) is told to read it again first.
 */
final class TurnLeaseJournal implements SessionJournal {
    private static final Logger log = LoggerFactory.getLogger(TurnLeaseJournal.class);

    private final SessionRepository store;
    private final String sessionId;
    private Consumer<String> user = text -> log.warn("{}", text);
    private SessionLease lease;
    private StoreJournal current;
    /** The seq of the last record this journal wrote or read. */
    private long seen;
    /** Records were added elsewhere, noticed by a write outside a turn: the next turn reads the session again. */
    private boolean stale;
    /**
     * Records of turns that ran while the store could not be reached (no lease could be taken): saved when a lease
     * can be taken again and nobody wrote meanwhile, so that the log keeps one unbroken order.
     */
    private final List<EngineRecord> waiting = new ArrayList<>();
    /** A turn runs without the lease: the store could not be reached when it started. */
    private boolean unleased;
    private boolean closed;

    /** A session read up to {@code seen}, with no lease held. */
    TurnLeaseJournal(SessionRepository store, String sessionId, long seen) {
        this.store = store;
        this.sessionId = sessionId;
        this.seen = seen;
    }

    /** A session whose lease is held already (a new session, a fork): {@link #release} it once it is set up. */
    TurnLeaseJournal(SessionRepository store, SessionLease held) {
        this(store, held.sessionId(), held.lastSeq());
        hold(held);
    }

    private void hold(SessionLease l) {
        lease = l;
        current = new StoreJournal(l);
        current.reportProblemsTo(user);
    }

    @Override
    public synchronized void reportProblemsTo(Consumer<String> user) {
        this.user = user;
        if (current != null) current.reportProblemsTo(user);
    }

    @Override
    public synchronized SessionReplay.Restored acquire() {
        if (closed) throw new IllegalStateException("session " + sessionId + " was closed for writing");
        boolean moved = stale;
        if (current == null) { // else still held since creation
            SessionLease l;
            try {
                l = store.lease(sessionId);
            } catch (SessionBusyException e) {
                throw e;
            } catch (SessionStoreException e) { // unreachable: the turn runs, its records wait until writing works again
                if (waiting.isEmpty()) {
                    user.accept("This answer could not be saved: " + e.getMessage() + ". The agent goes on and saves it"
                            + " as soon as writing works again; until then it would be lost if the agent stopped.");
                }
                unleased = true;
                return null;
            }
            hold(l);
            moved |= l.lastSeq() != seen;
            moved |= !saveWaiting(moved);
        }
        stale = false;
        if (!moved) return null;
        try {
            SessionReplay.Restored restored = SessionReplay.restore(store, sessionId);
            seen = restored.lastSeq();
            return restored;
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /**
     * With the lease just taken: saves the records that waited, unless the session {@code moved} on meanwhile (then
     * they are dropped, and the user told). Returns false when they were dropped.
     */
    private boolean saveWaiting(boolean moved) {
        if (waiting.isEmpty()) return true;
        if (moved) {
            log.error("session {}: {} records that waited are dropped: another instance continued the session", sessionId,
                    waiting.size());
            user.accept("What this conversation said while the session store could not be reached is not saved: another"
                    + " agent instance continued the conversation meanwhile. It goes on from what that instance saved.");
            waiting.clear();
            return false;
        }
        waiting.forEach(current::append);
        waiting.clear();
        user.accept("The conversation is saved again: what could not be saved before is stored now.");
        return true;
    }

    @Override
    public synchronized void release() {
        if (unleased) { // try once more: the store may be back
            unleased = false;
            try {
                SessionLease l = store.lease(sessionId);
                hold(l);
                if (!saveWaiting(l.lastSeq() != seen)) stale = true;
            } catch (SessionStoreException e) {
                return; // the records keep waiting for the next turn
            }
        }
        if (current == null) return;
        try {
            current.close(); // saves what is waiting, then ends the lease
        } finally {
            seen = lease.lastSeq();
            current = null;
            lease = null;
        }
    }

    @Override
    public synchronized void append(EngineRecord record) {
        if (closed) return;
        if (unleased) {
            waiting.add(record);
            return;
        }
        if (current != null) {
            current.append(record);
            return;
        }
        try {
            SessionLease l = store.lease(sessionId);
            boolean moved = l.lastSeq() != seen;
            hold(l);
            if (!saveWaiting(moved) || moved) stale = true; // what waited goes first, in order
        } catch (SessionBusyException e) {
            user.accept("This change is not saved: another agent instance is answering in this conversation now; "
                    + "it applies here until this session is read again.");
            return;
        } catch (SessionStoreException e) { // unreachable: it waits with what else could not be saved
            if (waiting.isEmpty()) user.accept("This change could not be saved yet: " + e.getMessage() + ". It is saved"
                    + " with the next turn once writing works again.");
            waiting.add(record);
            return;
        }
        current.append(record);
        release();
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        release();
        if (!waiting.isEmpty()) {
            log.error("session {}: {} records could not be saved and are lost (the session store cannot be reached)",
                    sessionId, waiting.size());
        }
        closed = true;
    }
}
