package cn.agentao.agent.door.agora;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Keeps the agent from talking in circles: it never answers itself, never answers past {@code maxDepth} agent
 * answers in a thread, and answers at most {@code perMinute} messages per space in any minute.
 */
final class LoopGuard {
    static final int DEFAULT_MAX_DEPTH = 4;
    static final int DEFAULT_PER_MINUTE = 10;

    private final String self;
    private final int maxDepth;
    private final int perMinute;
    private final Map<String, Deque<Long>> answered = new HashMap<>();

    LoopGuard(String self, int maxDepth, int perMinute) {
        this.self = self;
        this.maxDepth = maxDepth;
        this.perMinute = perMinute;
    }

    /** Why {@code msg} must not be answered, or null when it may be (then it counts against the rate). */
    synchronized String refuse(SpaceMessage msg, long nowMillis) {
        if (msg.from() != null && msg.from().equalsIgnoreCase(self)) return "it is this agent's own message";
        if (msg.depth() >= maxDepth) return "the thread is already " + msg.depth() + " answers deep (limit " + maxDepth + ")";
        Deque<Long> times = answered.computeIfAbsent(msg.space(), k -> new ArrayDeque<>());
        while (!times.isEmpty() && nowMillis - times.peekFirst() >= 60_000) times.removeFirst();
        if (times.size() >= perMinute) return "more than " + perMinute + " answers in a minute in this space";
        times.addLast(nowMillis);
        return null;
    }
}
