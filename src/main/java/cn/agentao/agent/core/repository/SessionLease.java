package cn.agentao.agent.core.repository;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Exclusive use of one stored session: while a lease is held, no other holder (in this process or another)
 * can lease, append to or delete the session. A lease ends when it is closed, or when its holder is gone
 * (the file store: the process died and the OS dropped its lock; a database: its connection ended), so a
 * crashed agent never leaves a session stuck. Once a lease has ended, {@link #held()} is false and
 * {@link #append} fails. Safe for use from several threads.
 */
public interface SessionLease extends AutoCloseable {
    String sessionId();

    /** The seq of the session's latest record, 0 if it has none. */
    long lastSeq();

    /**
     * Appends one record, durably and in order: when this returns the record is stored, after every record
     * appended before it; if it throws, the record is not stored.
     *
     * @param type    the record type: any non-blank string except {@code header}
     * @param payload the record's own fields (nullable); {@code seq}, {@code ts} and {@code type} are reserved
     * @return the record's seq: one more than the previous record's, across every lease the session ever had
     * @throws IllegalArgumentException for an invalid type or a reserved field
     * @throws IllegalStateException    if the lease has ended
     * @throws SessionStoreException    if the record could not be stored (disk full, connection lost)
     */
    long append(String type, ObjectNode payload);

    /** Whether this lease is still in force (not closed, not expired). */
    boolean held();

    /** Ends the lease, after making every appended record durable. Idempotent. */
    @Override
    void close();
}
