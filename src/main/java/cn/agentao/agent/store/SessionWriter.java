package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.SessionHeader;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionStoreException;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.IoErrors;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.time.Clock;
import java.util.Map;
import java.util.Set;

/**
 * The append handle of a live session. While it is open, this process holds the session's lock: no other
 * process (or other writer in this one) can open the session for writing or delete it. Close it to let go;
 * if the process dies instead, the OS lets go. Safe for use from several threads.
 */
public final class SessionWriter implements SessionLease {
    private static final Logger log = LoggerFactory.getLogger(SessionWriter.class);
    private static final Set<String> RESERVED = Set.of("seq", "ts", "type");

    private final String sessionId;
    private final FileChannel channel;
    private final SessionLocks.Held lock;
    private final SyncPolicy sync;
    private final Clock clock;
    private long lastSeq;
    private long size;
    private boolean closed;
    /** Set when a failed append could not be undone: the log's end is damaged, so stop appending to it. */
    private String broken;

    SessionWriter(String sessionId, FileChannel channel, SessionLocks.Held lock, SyncPolicy sync, Clock clock,
                  long lastSeq, long size) {
        this.sessionId = sessionId;
        this.channel = channel;
        this.lock = lock;
        this.sync = sync;
        this.clock = clock;
        this.lastSeq = lastSeq;
        this.size = size;
    }

    @Override
    public String sessionId() {
        return sessionId;
    }

    /** The seq of the latest record, 0 if there is none. */
    @Override
    public synchronized long lastSeq() {
        return lastSeq;
    }

    /**
     * Appends one record, {@code {"seq":N,"ts":...,"type":type, ...payload}}, as one line in a single write,
     * forced to the device under {@link SyncPolicy#FSYNC}. When this returns the record is durable; if it
     * throws, the record is not in the log (a partial write is undone).
     *
     * @param payload the record's own fields (nullable); {@code seq}, {@code ts} and {@code type} are reserved
     * @return the record's seq: 1 for the first record, then one more for each
     */
    @Override
    public synchronized long append(String type, ObjectNode payload) {
        if (closed) throw new IllegalStateException("session " + sessionId + " was closed for writing");
        if (broken != null) throw new SessionStoreException(broken);
        if (type == null || type.isBlank() || type.equals(SessionHeader.TYPE)) {
            throw new IllegalArgumentException("invalid record type '" + type + "'");
        }
        long seq = lastSeq + 1;
        write(encode(seq, type, payload), seq);
        return seq;
    }

    /** Writes whole lines (records up to {@code newLastSeq}), synced per the policy; on failure nothing of them stays. */
    private void write(byte[] lines, long newLastSeq) {
        try {
            DurableFiles.writeFully(channel, ByteBuffer.wrap(lines));
            if (sync == SyncPolicy.FSYNC) channel.force(false);
        } catch (IOException e) {
            undoPartialWrite(e);
            throw new SessionStoreException("could not append to session " + sessionId + ": " + IoErrors.describe(e), e);
        }
        size += lines.length;
        lastSeq = newLastSeq;
    }

    /**
     * Appends copies of {@code records} (whole records as read: their own {@code seq} and {@code ts} are replaced)
     * in one write and one sync, all or none: how a fork takes over its parent's history.
     */
    @Override
    public synchronized void appendCopies(java.util.List<ObjectNode> records) {
        if (closed) throw new IllegalStateException("session " + sessionId + " was closed for writing");
        if (broken != null) throw new SessionStoreException(broken);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        long seq = lastSeq;
        for (ObjectNode r : records) {
            String type = r.path("type").asText();
            if (type.isBlank() || type.equals(SessionHeader.TYPE)) continue;
            ObjectNode payload = r.deepCopy();
            payload.remove(RESERVED);
            out.writeBytes(encode(++seq, type, payload));
        }
        if (seq != lastSeq) write(out.toByteArray(), seq);
    }

    private byte[] encode(long seq, String type, ObjectNode payload) {
        return SessionLogCodec.encodeLine(record(seq, clock.instant(), type, payload));
    }

    /**
     * One record as stored ({@code seq}, {@code ts}, {@code type}, then the payload's fields), for every repository.
     *
     * @throws IllegalArgumentException for an invalid type or a reserved payload field
     */
    public static ObjectNode record(long seq, java.time.Instant ts, String type, ObjectNode payload) {
        if (type == null || type.isBlank() || type.equals(SessionHeader.TYPE)) {
            throw new IllegalArgumentException("invalid record type '" + type + "'");
        }
        ObjectNode record = Json.object().put("seq", seq).put("ts", ts.toString()).put("type", type);
        if (payload != null) {
            for (Map.Entry<String, JsonNode> field : payload.properties()) {
                if (RESERVED.contains(field.getKey())) {
                    throw new IllegalArgumentException("record field '" + field.getKey() + "' is reserved by the store");
                }
                record.set(field.getKey(), field.getValue());
            }
        }
        return record;
    }

    /** Cuts the log back to its last complete record so that the next append starts on a fresh line. */
    private void undoPartialWrite(IOException cause) {
        try {
            if (channel.size() > size) channel.truncate(size);
        } catch (IOException e) {
            cause.addSuppressed(e);
            broken = "session " + sessionId + " cannot be appended to after an earlier write failed (" + cause
                    + "); reopen it";
            log.error(broken);
        }
    }

    /** Open and not closed: the OS lock lasts as long as this process, so it never expires under a live writer. */
    @Override
    public synchronized boolean held() {
        return !closed;
    }

    /** Releases the session (forcing the log first under {@link SyncPolicy#NO_FSYNC}). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try (lock; channel) {
            if (sync == SyncPolicy.NO_FSYNC && broken == null) channel.force(false);
        } catch (IOException e) {
            throw new SessionStoreException("could not close session " + sessionId + ": " + e, e);
        }
    }
}
