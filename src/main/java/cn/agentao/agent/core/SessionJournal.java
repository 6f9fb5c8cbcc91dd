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

    /** Where to tell the user that saving failed (or works again): the session's notices. */
    default void reportProblemsTo(java.util.function.Consumer<String> user) { }

    @Override
    void close();
}
