package cn.agentao.agent.engine;

import cn.agentao.agent.store.SessionWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A session's journal in the durable store: each record appended and synced as the turn goes. */
public final class StoreJournal implements SessionJournal {
    private static final Logger log = LoggerFactory.getLogger(StoreJournal.class);
    private final SessionWriter writer;
    private volatile boolean failed;

    public StoreJournal(SessionWriter writer) {
        this.writer = writer;
    }

    @Override
    public void append(String type, ObjectNode payload) {
        try {
            writer.append(type, payload);
        } catch (RuntimeException e) {
            if (!failed) log.error("session {}: cannot save to the store: {}", writer.sessionId(), e.toString());
            failed = true;
        }
    }

    @Override
    public void close() {
        try {
            writer.close();
        } catch (RuntimeException e) {
            log.warn("session {}: closing its log failed: {}", writer.sessionId(), e.toString());
        }
    }
}
