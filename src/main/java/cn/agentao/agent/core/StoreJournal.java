package cn.agentao.agent.core;

import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.core.record.EngineRecords;
import cn.agentao.agent.core.repository.SessionLease;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Consumer;

/**
 * A session's journal in the durable store: each record appended and synced as the turn goes. A record that
 * cannot be written (disk full, say) is never dropped silently: the user is told in the session, the record
 * waits in memory with everything after it (order kept), and every later append first retries the waiting
 * ones, so the log catches up as soon as writing works again; the user is told that too.
 */
public final class StoreJournal implements SessionJournal {
    private static final Logger log = LoggerFactory.getLogger(StoreJournal.class);

    private record Waiting(String type, ObjectNode payload) {}

    private final SessionLease writer;
    private final Deque<Waiting> waiting = new ArrayDeque<>();
    /** Told about failures (and recovery); until the engine sets it, they are logged. */
    private Consumer<String> user = text -> log.warn("{}", text);
    /** Why the oldest waiting record could not be written; null while everything is saved. */
    private String failure;
    /** Set once the lease ended under the session (a repository that expires leases): nothing is saved any more. */
    private boolean leaseLost;
    private boolean closed;

    public StoreJournal(SessionLease writer) {
        this.writer = writer;
    }

    @Override
    public synchronized void reportProblemsTo(Consumer<String> user) {
        this.user = user;
    }

    @Override
    public synchronized void append(EngineRecord record) {
        if (leaseLost) {
            log.debug("session {}: a {} record is not saved: the session's lease ended", writer.sessionId(), record.type());
            return;
        }
        waiting.add(new Waiting(record.type(), EngineRecords.payload(record)));
        flush();
    }

    /** Writes the waiting records in order; stops at the first that fails. Returns true when none is left. */
    private boolean flush() {
        while (!waiting.isEmpty()) {
            Waiting next = waiting.peek();
            try {
                writer.append(next.type(), next.payload());
                waiting.poll();
            } catch (SessionStoreException e) {
                if (failure == null) {
                    failure = e.getMessage();
                    user.accept("This answer could not be saved: " + failure + ". The agent goes on and saves it"
                            + " as soon as writing works again; until then it would be lost if the agent stopped.");
                }
                return false;
            } catch (IllegalArgumentException | IllegalStateException e) { // a record the store refuses, or closed
                if (e instanceof IllegalStateException && !closed && !writer.held()) {
                    leaseLost(e); // not closed here: the lease expired (another holder may have it now)
                    return false;
                }
                log.error("session {}: a {} record cannot be saved and is dropped: {}", writer.sessionId(), next.type(),
                        e.getMessage());
                waiting.poll();
            }
        }
        if (failure != null) {
            failure = null;
            user.accept("The conversation is saved again: what could not be saved before is stored now.");
        }
        return true;
    }

    private void leaseLost(RuntimeException e) {
        leaseLost = true;
        log.error("session {}: its lease ended ({}); {} records are not saved", writer.sessionId(), e.getMessage(), waiting.size());
        waiting.clear();
        failure = null;
        user.accept("This conversation is no longer being saved: the session store let go of it (" + e.getMessage()
                + "); another agent may have taken it over. Start a new session to keep saving.");
    }

    @Override
    public synchronized void close() {
        if (!leaseLost && !flush()) {
            log.error("session {}: {} records could not be saved and are lost ({})", writer.sessionId(), waiting.size(),
                    failure);
        }
        try {
            writer.close();
        } catch (RuntimeException e) {
            log.warn("session {}: closing its log failed: {}", writer.sessionId(), e.toString());
        } finally {
            closed = true;
        }
    }
}
