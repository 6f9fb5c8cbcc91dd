package cn.agentao.agent.core.repository;

import java.util.List;

/**
 * One page of a listing.
 *
 * @param nextCursor pass to the next call for the following page; null on the last page
 */
public record Page<T>(List<T> items, String nextCursor) {
    public Page {
        items = List.copyOf(items);
    }
}
