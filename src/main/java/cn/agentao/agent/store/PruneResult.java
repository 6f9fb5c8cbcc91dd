package cn.agentao.agent.store;

import java.util.List;

/**
 * What {@link SessionStore#prune} removed (or, for {@link SessionStore#planPrune}, would remove).
 *
 * @param skippedLive sessions the rule selected that are open for writing, so were left alone
 */
public record PruneResult(List<SessionSummary> removed, List<SessionSummary> skippedLive) {
    public PruneResult {
        removed = List.copyOf(removed);
        skippedLive = List.copyOf(skippedLive);
    }
}
