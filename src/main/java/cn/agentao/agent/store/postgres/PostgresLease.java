package cn.agentao.agent.store.postgres;

import cn.agentao.agent.core.record.RecordTypes;
import cn.agentao.agent.core.repository.SessionHeader;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.store.SessionWriter;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * A lease on a session in PostgreSQL: the session's advisory lock, held by a connection of the lease's own (from the
 * repository's lease pool, given back unlocked when the lease ends). Each
 * append is one transaction on that connection (the record and the session's summary together). If the
 * connection is lost the lock is gone with it: the lease is no longer held and appends fail with a clear error,
 * until the next append finds the database back, retakes the lock and sees that nobody wrote meanwhile.
 */
final class PostgresLease implements SessionLease {
    private final String sessionId;
    private final Reconnect reconnect;
    private final java.util.function.Consumer<Connection> giveBack;
    private Connection connection;
    private final Clock clock;
    private final String where;
    private long lastSeq;
    private boolean closed;
    private boolean lost;

    /** Opens a new connection holding the session's lock, or null if another holder has it. */
    interface Reconnect {
        Connection relock() throws SQLException;
    }

    PostgresLease(String sessionId, Connection connection, Reconnect reconnect, java.util.function.Consumer<Connection> giveBack,
                  Clock clock, long lastSeq, String where) throws SQLException {
        this.sessionId = sessionId;
        this.connection = connection;
        this.reconnect = reconnect;
        this.giveBack = giveBack;
        this.clock = clock;
        this.lastSeq = lastSeq;
        this.where = where;
        connection.setAutoCommit(false);
    }

    @Override
    public String sessionId() {
        return sessionId;
    }

    @Override
    public synchronized long lastSeq() {
        return lastSeq;
    }

    @Override
    public synchronized long append(String type, ObjectNode payload) {
        return write(List.of(new Pending(type, payload)));
    }

    /**
     * A fork's copies of its parent's records in ONE transaction: all are stored or none is (a failure midway leaves
     * the session as it was, no half fork).
     */
    @Override
    public synchronized void appendCopies(List<ObjectNode> records) {
        List<Pending> copies = new ArrayList<>();
        for (ObjectNode r : records) {
            String type = r.path("type").asText();
            if (type.isBlank() || type.equals(SessionHeader.TYPE)) continue;
            ObjectNode payload = r.deepCopy();
            payload.remove(List.of("seq", "ts", "type"));
            copies.add(new Pending(type, payload));
        }
        if (!copies.isEmpty()) write(copies);
    }

    private record Pending(String type, ObjectNode payload) {}

    /** Stores {@code records} after the last one, in one transaction with the session's summary; returns the last seq. */
    private long write(List<Pending> records) {
        if (closed) throw new IllegalStateException("session " + sessionId + " was closed for writing");
        if (lost) regain();
        long seq = lastSeq;
        Instant ts = clock.instant().truncatedTo(ChronoUnit.MICROS);
        String title = null;
        List<String> bodies = new ArrayList<>(records.size());
        for (Pending p : records) {
            ObjectNode record = SessionWriter.record(++seq, ts, p.type(), p.payload());
            if (RecordTypes.isTitle(record)) title = RecordTypes.titleText(record);
            try {
                bodies.add(Json.mapper().writeValueAsString(record));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("cannot write a " + p.type() + " record as JSON: " + e.getMessage(), e);
            }
        }
        try {
            try (PreparedStatement ps = connection.prepareStatement("insert into agent_records (session_id, seq, body) values (?, ?, ?)")) {
                long s = lastSeq;
                for (String body : bodies) {
                    ps.setString(1, sessionId);
                    ps.setLong(2, ++s);
                    ps.setString(3, body);
                    if (bodies.size() == 1) ps.executeUpdate();
                    else ps.addBatch();
                }
                if (bodies.size() > 1) ps.executeBatch();
            }
            try (PreparedStatement ps = connection.prepareStatement("update agent_sessions set last_seq = ?, records = records + ?,"
                    + " updated_at = ?, title = coalesce(?, title) where id = ?")) {
                ps.setLong(1, seq);
                ps.setLong(2, bodies.size());
                ps.setTimestamp(3, Timestamp.from(ts));
                ps.setString(4, title);
                ps.setString(5, sessionId);
                ps.executeUpdate();
            }
            connection.commit();
        } catch (SQLException e) {
            try {
                connection.rollback();
            } catch (SQLException ignored) {
                // the connection is broken: checked below
            }
            if (!alive()) lost = true;
            throw new SessionStoreException("could not append to session " + sessionId + " in the session store "
                    + where + ": " + e.getMessage() + (lost ? " (the connection was lost)" : ""), e);
        }
        lastSeq = seq;
        return seq;
    }

    /**
     * After the connection was lost (the database restarted): takes the session's lock again on a new connection,
     * but only if no other holder has appended meanwhile, so the records keep one unbroken order.
     */
    private void regain() {
        Connection fresh = null;
        try {
            fresh = reconnect.relock();
            // the lease is over for good (SessionLease: IllegalStateException): the journal stops saving and says so
            if (fresh == null) throw new IllegalStateException("the lease on session " + sessionId + " ended when its"
                    + " connection to " + where + " was lost, and another agent holds it now");
            try (PreparedStatement ps = fresh.prepareStatement("select last_seq from agent_sessions where id = ?")) {
                ps.setString(1, sessionId);
                try (var rs = ps.executeQuery()) {
                    if (!rs.next() || rs.getLong(1) != lastSeq) {
                        throw new IllegalStateException("session " + sessionId + " was changed or deleted elsewhere"
                                + " while the connection to " + where + " was lost");
                    }
                }
            }
            fresh.setAutoCommit(false);
            giveBack.accept(connection); // broken: dropped from the pool
            connection = fresh;
            lost = false;
        } catch (SQLException | RuntimeException e) {
            if (fresh != null) giveBack.accept(fresh);
            if (e instanceof SessionStoreException || e instanceof IllegalStateException) throw (RuntimeException) e;
            throw new SessionStoreException("could not append to session " + sessionId + ": the connection to " + where
                    + " was lost and cannot be made again: " + e.getMessage(), e);
        }
    }

    private boolean alive() {
        try {
            return connection.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public synchronized boolean held() {
        return !closed && !lost;
    }

    /** Ends the lease: releases its advisory lock and gives its connection back. Appends were committed one by one. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        giveBack.accept(connection);
    }
}
