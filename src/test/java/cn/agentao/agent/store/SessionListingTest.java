package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.SessionNotFoundException;
import cn.agentao.agent.core.repository.AmbiguousSessionIdException;

import cn.agentao.agent.core.repository.Page;
import cn.agentao.agent.core.repository.SessionSummary;

import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionListingTest {
    private static final Path PROJ_A = Path.of("/work/a");
    private static final Path PROJ_B = Path.of("/work/b");

    @TempDir
    Path dir;

    private final TestClock clock = new TestClock("2025-06-01T09:00:00Z");
    private SessionStore store;

    /** Sessions a1..a5 in /work/a and b1, b2 in /work/b, each created (and updated) a minute after the last. */
    private void sevenSessions() {
        store = new SessionStore(dir, SyncPolicy.NO_FSYNC, clock);
        for (String id : List.of("a1", "b1", "a2", "a3", "b2", "a4", "a5")) {
            clock.advance(Duration.ofMinutes(1));
            try (SessionWriter w = store.create(id, id.startsWith("a") ? PROJ_A : PROJ_B, null)) {
                w.append("title", Json.object().put("text", "title of " + id));
            }
        }
    }

    private static List<String> ids(Page<SessionSummary> page) {
        return page.items().stream().map(SessionSummary::sessionId).toList();
    }

    @Test
    void listsNewestUpdatedFirstAndFiltersByCwd() {
        sevenSessions();
        assertEquals(List.of("a5", "a4", "b2", "a3", "a2", "b1", "a1"), ids(store.list(null, null, 50)));
        assertEquals(List.of("b2", "b1"), ids(store.list(PROJ_B, null, 50)));
        assertEquals(List.of("a5", "a4", "a3", "a2", "a1"), ids(store.list(Path.of("/work/x/../a"), null, 50)),
                "the filter is compared as a normalised path");
        SessionSummary a5 = store.list(PROJ_A, null, 1).items().getFirst();
        assertEquals("title of a5", a5.title());
        assertEquals(PROJ_A, a5.cwd());
        assertEquals(1, a5.records());
    }

    @Test
    void appendingMovesASessionToTheTop() {
        sevenSessions();
        clock.advance(Duration.ofMinutes(1));
        try (SessionWriter w = store.lease("a1")) {
            w.append("title", Json.object().put("text", "renamed"));
        }
        SessionSummary top = store.list(null, null, 1).items().getFirst();
        assertEquals("a1", top.sessionId());
        assertEquals("renamed", top.title());
        assertEquals(2, top.records());
        assertEquals(Optional.of("a1"), store.latestFor(PROJ_A));
        assertEquals(Optional.of("b2"), store.latestFor(PROJ_B));
        assertEquals(Optional.empty(), store.latestFor(Path.of("/elsewhere")));
    }

    @Test
    void cursorWalksAllPagesWithoutRepeatsOrGaps() {
        sevenSessions();
        List<String> seen = new ArrayList<>();
        List<Integer> pageSizes = new ArrayList<>();
        String cursor = null;
        do {
            Page<SessionSummary> page = store.list(null, cursor, 3);
            seen.addAll(ids(page));
            pageSizes.add(page.items().size());
            cursor = page.nextCursor();
        } while (cursor != null);
        assertEquals(List.of(3, 3, 1), pageSizes);
        assertEquals(List.of("a5", "a4", "b2", "a3", "a2", "b1", "a1"), seen);

        Page<SessionSummary> first = store.list(PROJ_A, null, 2);
        assertEquals(List.of("a5", "a4"), ids(first));
        clock.advance(Duration.ofMinutes(1));
        store.create("a6", PROJ_A, null).close(); // a newer session must not shift the next page
        assertEquals(List.of("a3", "a2"), ids(store.list(PROJ_A, first.nextCursor(), 2)));
    }

    @Test
    void lastPageHasNoCursorAndBadCursorsAreRefused() {
        sevenSessions();
        assertNull(store.list(null, null, 7).nextCursor());
        assertNotNull(store.list(null, null, 6).nextCursor());
        assertThrows(IllegalArgumentException.class, () -> store.list(null, "not-a-cursor!", 5));
        assertThrows(IllegalArgumentException.class, () -> store.list(null, null, 0));
    }

    @Test
    void prefixResolvesToTheOnlyMatchOrNamesTheAmbiguity() {
        store = new SessionStore(dir, SyncPolicy.NO_FSYNC, clock);
        for (String id : List.of("7f3a9c01", "7f3b0000", "7f3a", "c0ffee")) store.create(id, PROJ_A, null).close();

        assertEquals("c0ffee", store.resolvePrefix("c0"));
        assertEquals("7f3b0000", store.resolvePrefix("7f3b"));
        assertEquals("7f3a", store.resolvePrefix("7f3a"), "an exact id wins over longer ids it prefixes");
        AmbiguousSessionIdException ambiguous = assertThrows(AmbiguousSessionIdException.class, () -> store.resolvePrefix("7f"));
        assertEquals(List.of("7f3a", "7f3a9c01", "7f3b0000"), ambiguous.candidates());
        assertTrue(ambiguous.getMessage().contains("'7f'") && ambiguous.getMessage().contains("7f3a9c01"), ambiguous.getMessage());
        assertThrows(SessionNotFoundException.class, () -> store.resolvePrefix("dead"));
    }

    @Test
    void indexIsOnlyACacheTheLogsWin() throws Exception {
        sevenSessions();
        store.list(null, null, 50);
        Path index = dir.resolve("index.json");
        assertTrue(Files.exists(index));

        // another process appends to a1 behind this store's back, then the index is damaged: both are noticed
        SessionStore other = new SessionStore(dir, SyncPolicy.NO_FSYNC, clock);
        clock.advance(Duration.ofHours(1));
        try (SessionWriter w = other.lease("a1")) {
            w.append("title", Json.object().put("text", "from elsewhere"));
        }
        assertEquals("from elsewhere", store.list(null, null, 1).items().getFirst().title());

        Files.writeString(index, "{ this is not json", StandardOpenOption.TRUNCATE_EXISTING);
        SessionStore fresh = new SessionStore(dir, SyncPolicy.NO_FSYNC, clock);
        assertEquals(List.of("a1", "a5", "a4", "b2", "a3", "a2", "b1"), ids(fresh.list(null, null, 50)));

        Files.delete(index);
        Files.delete(dir.resolve("b2.jsonl"));
        assertEquals(List.of("a1", "a5", "a4", "a3", "a2", "b1"), ids(new SessionStore(dir).list(null, null, 50)));
    }

    @Test
    void summaryOfALiveSessionFollowsItsAppends() {
        store = new SessionStore(dir, SyncPolicy.NO_FSYNC, clock);
        try (SessionWriter w = store.create("live", PROJ_A, null)) {
            for (int i = 1; i <= 5; i++) {
                clock.advance(Duration.ofSeconds(1));
                w.append("agent_chunk", Json.object().put("text", "chunk " + i));
                SessionSummary s = store.list(null, null, 1).items().getFirst();
                assertEquals(i, s.records());
                assertEquals(clock.instant(), s.updatedAt());
            }
        }
    }
}
