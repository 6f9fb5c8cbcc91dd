package cn.agentao.agent.core.repository;

import java.util.List;

/**
 * What {@link SessionRepository#scan} tells besides the records.
 *
 * @param warnings damage that was skipped (torn last record, unreadable records), one readable sentence each
 */
public record SessionHeading(SessionHeader header, List<String> warnings) {
    public SessionHeading {
        warnings = List.copyOf(warnings);
    }
}
