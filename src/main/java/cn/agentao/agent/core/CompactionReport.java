package cn.agentao.agent.core;

import cn.agentao.agent.model.ModelStreamListener;
import cn.agentao.agent.protocol.ContentBlock;
import cn.agentao.agent.protocol.SessionUpdate;

import java.util.List;
import java.util.UUID;

/**
 * Shows a compaction to clients that advertise {@code session.compaction}: {@code compaction_update} in progress,
 * the summary streamed as {@code compaction_summary_chunk}s, then completed (with the summary), failed or cancelled.
 * Other clients see nothing (as before); this listener then ignores the stream.
 */
final class CompactionReport implements ModelStreamListener {
    private final SessionClient client;
    private final boolean live;
    private final String id = "compaction-" + UUID.randomUUID();

    CompactionReport(SessionClient client) {
        this.client = client;
        this.live = client.capabilities().compactionUpdates();
        if (live) client.update(new SessionUpdate.CompactionUpdate(id, "in_progress", null, null));
    }

    @Override
    public void onText(String delta) {
        if (live && !delta.isEmpty()) client.update(new SessionUpdate.CompactionSummaryChunk(id, ContentBlock.text(delta)));
    }

    @Override
    public void onReasoning(String delta) {}

    void completed(String summary) {
        if (live) client.update(new SessionUpdate.CompactionUpdate(id, "completed", List.of(ContentBlock.text(summary)), null));
    }

    void failed(String error) {
        if (live) client.update(new SessionUpdate.CompactionUpdate(id, "failed", null, error));
    }

    void cancelled() {
        if (live) client.update(new SessionUpdate.CompactionUpdate(id, "cancelled", null, null));
    }
}
