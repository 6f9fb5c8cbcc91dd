package cn.agentao.agent.store;

import cn.agentao.agent.core.record.RecordTypes;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.core.repository.Timestamps;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.time.Instant;

/** Folds records, in order, into a {@link SessionSummary}. */
final class SummaryBuilder {
    private final String sessionId;
    private final Path cwd;
    private final Instant createdAt;
    private String title;
    private Instant updatedAt;
    private long records;

    SummaryBuilder(String sessionId, Path cwd, Instant createdAt, String title, Instant updatedAt, long records) {
        this.sessionId = sessionId;
        this.cwd = cwd;
        this.createdAt = createdAt;
        this.title = title;
        this.updatedAt = updatedAt;
        this.records = records;
    }

    void add(ObjectNode record) {
        records++;
        Instant ts = Timestamps.parseOrNull(record.path("ts").asText(null));
        if (ts != null) updatedAt = ts;
        if (RecordTypes.isTitle(record)) title = RecordTypes.titleText(record);
    }

    SessionSummary build() {
        return new SessionSummary(sessionId, cwd, title, createdAt, updatedAt, records, null);
    }
}
