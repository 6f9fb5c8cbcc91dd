package cn.agentao.agent.core;

import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.model.ModelStreamListener;

import java.util.UUID;

/**
 * A compaction as events for the session's host: in progress, the summary streamed in chunks, then completed (with
 * the summary), failed or cancelled. A front door shows them to users that understand them (ACP: {@code session.compaction}).
 */
final class CompactionReport implements ModelStreamListener {
    private final Session session;
    private final String id = "compaction-" + UUID.randomUUID();

    CompactionReport(Session session) {
        this.session = session;
        session.emit(new AgentEvent.CompactionChanged(id, "in_progress", null, null));
    }

    @Override
    public void onText(String delta) {
        if (!delta.isEmpty()) session.emit(new AgentEvent.CompactionChunk(id, delta));
    }

    @Override
    public void onReasoning(String delta) {}

    void completed(String summary) {
        session.emit(new AgentEvent.CompactionChanged(id, "completed", summary, null));
    }

    void failed(String error) {
        session.emit(new AgentEvent.CompactionChanged(id, "failed", null, error));
    }

    void cancelled() {
        session.emit(new AgentEvent.CompactionChanged(id, "cancelled", null, null));
    }
}
