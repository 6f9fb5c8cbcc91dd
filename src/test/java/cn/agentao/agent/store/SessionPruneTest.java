package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.PruneResult;
import cn.agentao.agent.core.repository.PruneRule;
import cn.agentao.agent.core.repository.SessionBusyException;
import cn.agentao.agent.core.repository.SessionNotFoundException;
import cn.agentao.agent.core.repository.SessionSummary;

import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionPruneTest {
    @TempDir
    Path dir;

    private final TestClock clock = new TestClock("2025-01-01T00:00:00Z");
    private SessionStore store;

    /** old1 (90 days ago), old2 (40 days ago), recent (2 days ago), today (now). */
    @BeforeEach
    void fourSessionsOfDifferentAges() {
        store = new SessionStore(dir, SyncPolicy.NO_FSYNC, clock);
        store.create("old1", dir, null).close();
        clock.advance(Duration.ofDays(50));
        store.create("old2", dir, null).close();
        clock.advance(Duration.ofDays(38));
        try (SessionWriter w = store.create("recent", dir, null)) {
            w.append("user_message", Json.object().put("text", "hi"));
        }
        clock.advance(Duration.ofDays(2));
        store.create("today", dir, null).close();
    }

    private List<String> remaining() {
        return store.list(null, null, 100).items().stream().map(SessionSummary::sessionId).toList();
    }

    private static List<String> ids(List<SessionSummary> summaries) {
        return summaries.stream().map(SessionSummary::sessionId).toList();
    }

    @Test
    void deleteRemovesTheLogAndItsLockFile() {
        assertTrue(store.delete("recent"));
        assertFalse(Files.exists(dir.resolve("recent.jsonl")));
        assertFalse(Files.exists(dir.resolve("recent.lock")));
        assertThrows(SessionNotFoundException.class, () -> store.read("recent"));
        assertFalse(store.delete("recent"));
        assertEquals(List.of("today", "old2", "old1"), remaining());
    }

    @Test
    void deleteRefusesALiveSession() {
        try (SessionWriter ignored = store.lease("recent")) {
            SessionBusyException e = assertThrows(SessionBusyException.class, () -> store.delete("recent"));
            assertTrue(e.getMessage().contains("recent"));
        }
        assertTrue(store.delete("recent"));
    }

    @Test
    void pruneOlderThanRemovesOnlySessionsNotUpdatedSince() {
        PruneResult result = store.prune(PruneRule.olderThan(Duration.ofDays(30)));
        assertEquals(List.of("old2", "old1"), ids(result.removed()));
        assertEquals(List.of("today", "recent"), remaining());
    }

    @Test
    void pruneKeepNewestKeepsThatMany() {
        assertEquals(List.of("old2", "old1"), ids(store.prune(PruneRule.keepNewest(2)).removed()));
        assertEquals(List.of("today", "recent"), remaining());
        assertEquals(List.of(), store.prune(PruneRule.keepNewest(5)).removed());
    }

    @Test
    void planPruneIsADryRun() {
        PruneResult plan = store.planPrune(PruneRule.keepNewest(1));
        assertEquals(List.of("recent", "old2", "old1"), ids(plan.removed()));
        assertEquals(List.of("today", "recent", "old2", "old1"), remaining());
    }

    @Test
    void pruneLeavesLiveAndUnreadableSessionsAlone() {
        Fixtures.copyInto(dir, "empty", "future-version");
        try (SessionWriter ignored = store.lease("old1")) {
            PruneResult result = store.prune(PruneRule.keepNewest(0));
            assertEquals(List.of("today", "recent", "old2"), ids(result.removed()));
            assertEquals(List.of("old1"), ids(result.skippedLive()));
        }
        assertTrue(store.exists("old1"));
        assertTrue(store.exists("empty"));
        assertTrue(store.exists("future-version"));
    }
}
