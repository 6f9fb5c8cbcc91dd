package cn.agentao.agent.core.repository;

import java.time.Duration;

/** Which sessions {@link SessionRepository#prune} removes. Nothing is ever removed without one being asked for. */
public sealed interface PruneRule {

    /** Sessions not updated for longer than {@code age}. */
    record OlderThan(Duration age) implements PruneRule {
        public OlderThan {
            if (age == null || age.isNegative()) throw new IllegalArgumentException("prune age must be >= 0: " + age);
        }
    }

    /** All but the {@code count} most recently updated sessions. */
    record KeepNewest(int count) implements PruneRule {
        public KeepNewest {
            if (count < 0) throw new IllegalArgumentException("number of sessions to keep must be >= 0: " + count);
        }
    }

    static PruneRule olderThan(Duration age) {
        return new OlderThan(age);
    }

    static PruneRule keepNewest(int count) {
        return new KeepNewest(count);
    }
}
