package cn.agentao.agent.core;

import cn.agentao.agent.core.record.EngineRecord;

/** Where a session's records go as the turn proceeds (the durable store, or nowhere). */
public interface SessionJournal extends AutoCloseable {
    SessionJournal NONE = new SessionJournal() {
        @Override public void append(EngineRecord record) {}
        @Override public void close() {}
    };

    /** Appends one record durably; a failure is logged and told to the user, never thrown into the turn. */
    void append(EngineRecord record);

    /**
     * Takes the session's lease for one turn, where the journal leases per turn (a shared repository); a no-op
     * where the lease is held while the session is open. When records were added elsewhere since this journal
     * last wrote or read the session (another instance answered meanwhile), returns the session read again, for
     * the turn to start from; else null.
     *
     * @throws cn.agentao.agent.core.repository.SessionBusyException  while another instance holds the lease
     * @throws cn.agentao.agent.core.repository.SessionStoreException when the repository cannot be reached
     */
    default SessionReplay.Restored acquire() { return null; }

    /** Saves the turn's records and lets go of the lease {@link #acquire} took. */
    default void release() { }

    /** Where to tell the user that saving failed (or works again): the session's notices. */
    default void reportProblemsTo(java.util.function.Consumer<String> user) { }

    @Override
    void close();
}
