package cn.agentao.agent.core.repository;

import cn.agentao.agent.core.record.RecordTypes;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Optional;

/**
 * A session as read from its log.
 *
 * @param records  every readable record in order, each the whole line ({@code seq}, {@code ts}, {@code type} and
 *                 the payload fields), unknown types included
 * @param warnings damage that was skipped (torn last line, unreadable lines), one readable sentence each
 */
public record StoredSession(String sessionId, SessionHeader header, List<ObjectNode> records, List<String> warnings) {
    public StoredSession {
        records = List.copyOf(records);
        warnings = List.copyOf(warnings);
    }

    /** The text of the latest {@code title} record, if any. */
    public Optional<String> title() {
        for (int i = records.size() - 1; i >= 0; i--) {
            ObjectNode record = records.get(i);
            if (RecordTypes.isTitle(record)) return Optional.ofNullable(RecordTypes.titleText(record));
        }
        return Optional.empty();
    }
}
