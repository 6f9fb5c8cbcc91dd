package cn.agentao.agent.core.repository;

import java.util.List;

/**
 * What {@link SessionRepository#prune} removed (or, for {@link SessionRepository#planPrune}, would remove).
 *
 * @param skippedLive sessions the rule selected that are open for writing, so were left alone
 */
public record PruneResult(List<SessionSummary> removed, List<SessionSummary> skippedLive) {
    public PruneResult {
        removed = List.copyOf(removed);
        skippedLive = List.copyOf(skippedLive);
    }
}
