package cn.agentao.agent.core.repository;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The behaviour every {@link SessionRepository} shows, whatever keeps the sessions: extend this class and
 * give {@link #repository} a fresh, empty repository (the file store: {@code FileSessionRepositoryIT}; a
 * database-backed one runs the same cases). The repository must stamp records and headers with the clock it
 * is given, which the cases move by hand so that "most recently updated first" is decided.
 */
public abstract class SessionRepositoryContract {
    /** A clock the cases move by hand. */
    protected static final class ManualClock extends Clock {
        private Instant now = Instant.parse("2025-06-01T09:00:00Z");

        void advance() {
            now = now.plusSeconds(1);
        }

        @Override public Instant instant() { return now; }
        @Override public ZoneId getZone() { return ZoneOffset.UTC; }
        @Override public Clock withZone(ZoneId zone) { throw new UnsupportedOperationException(); }
    }

    protected final ManualClock clock = new ManualClock();
    private SessionRepository repo;

    /** A new, empty repository whose timestamps come from {@code clock}. */
    protected abstract SessionRepository repository(Clock clock) throws Exception;

    /**
     * Leases {@code sessionId} in another holder (another process, another database connection) and returns
     * what makes that holder vanish abruptly, without closing its lease (killing the process, dropping the
     * connection).
     */
    protected abstract AutoCloseable leaseElsewhere(String sessionId) throws Exception;

    /** A working directory for sessions (need not exist). */
    protected Path cwd(String name) {
        return Path.of("/work", name).toAbsolutePath();
    }

    @BeforeEach
    void freshRepository() throws Exception {
        repo = repository(clock);
    }

    private static ObjectNode text(String text) {
        return Json.object().put("text", text);
    }

    private List<ObjectNode> records(String id) {
        List<ObjectNode> out = new ArrayList<>();
        repo.scan(id, out::add);
        return out;
    }

    /** Creates a session with {@code n} records, the clock moving one second before each. */
    private void session(String id, Path cwd, int n) {
        clock.advance();
        try (SessionLease lease = repo.create(id, cwd, null)) {
            for (int i = 0; i < n; i++) {
                clock.advance();
                lease.append("note", text(id + " " + i));
            }
        }
    }

    @Test
    void whatIsAppendedReadsBackInOrderWithItsHeader() {
        ObjectNode extra = Json.object().put("origin", "contract");
        try (SessionLease lease = repo.create("s1", cwd("a"), extra)) {
            assertEquals(0, lease.lastSeq());
            assertEquals(1, lease.append("user_message", text("first")));
            assertEquals(2, lease.append("x_future_type", text("second")));
            assertEquals(3, lease.append("title", Json.object().put("text", "A title")));
            assertEquals(3, lease.lastSeq());
        }
        List<ObjectNode> records = new ArrayList<>();
        SessionHeading heading = repo.scan("s1", records::add);
        assertEquals(cwd("a"), heading.header().cwd());
        assertEquals("contract", heading.header().json().path("origin").asText(), "extra header fields are kept");
        assertEquals(List.of(), heading.warnings());
        assertEquals(List.of("user_message", "x_future_type", "title"), records.stream().map(r -> r.path("type").asText()).toList());
        assertEquals(List.of(1L, 2L, 3L), records.stream().map(r -> r.path("seq").asLong()).toList());
        assertEquals("second", records.get(1).path("text").asText(), "an unknown type comes back unchanged");
        assertEquals(Instant.parse(records.get(0).path("ts").asText()), clock.instant());
        assertEquals("A title", repo.read("s1").title().orElseThrow());
    }

    @Test
    void aSessionIsCreatedOnce() {
        repo.create("dup", cwd("a"), null).close();
        assertThrows(SessionExistsException.class, () -> repo.create("dup", cwd("b"), null));
        assertEquals(cwd("a"), repo.read("dup").header().cwd());
        assertTrue(repo.exists("dup"));
        assertFalse(repo.exists("other"));
    }

    @Test
    void aLeaseIsExclusiveUntilItEnds() {
        SessionLease first = repo.create("busy", cwd("a"), null);
        assertTrue(first.held());
        assertTrue(repo.isLive("busy"));
        assertThrows(SessionBusyException.class, () -> repo.lease("busy"));
        assertThrows(SessionBusyException.class, () -> repo.delete("busy"));
        first.append("note", text("one"));
        first.close();
        assertFalse(first.held());
        assertFalse(repo.isLive("busy"));
        assertThrows(IllegalStateException.class, () -> first.append("note", text("after close")));
        try (SessionLease second = repo.lease("busy")) {
            assertEquals(1, second.lastSeq(), "seq goes on across leases");
            assertEquals(2, second.append("note", text("two")));
        }
        assertEquals(2, records("busy").size());
    }

    @Test
    void aLeaseEndsWhenItsHolderIsGone() throws Exception {
        try (SessionLease lease = repo.create("orphan", cwd("a"), null)) {
            lease.append("note", text("before"));
        }
        try (AutoCloseable holder = leaseElsewhere("orphan")) {
            assertTrue(repo.isLive("orphan"));
            assertThrows(SessionBusyException.class, () -> repo.lease("orphan"));
            holder.close(); // the holder dies without letting go (closing again at the end does nothing)
        }
        SessionLease taken = null;
        for (long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); taken == null; ) {
            try {
                taken = repo.lease("orphan");
            } catch (SessionBusyException e) {
                if (System.nanoTime() > deadline) throw e; // an implementation may take a moment to notice
                Thread.sleep(100);
            }
        }
        try (SessionLease lease = taken) {
            assertEquals(2, lease.append("note", text("after")));
        }
    }

    @Test
    void unknownSessionsAreNotFound() {
        assertThrows(SessionNotFoundException.class, () -> repo.lease("missing"));
        assertThrows(SessionNotFoundException.class, () -> repo.scan("missing", r -> fail("no records")));
        assertFalse(repo.delete("missing"));
        assertFalse(repo.isLive("missing"));
    }

    @Test
    void reservedFieldsAndTypesAreRefusedAndNothingIsStored() {
        try (SessionLease lease = repo.create("strict", cwd("a"), null)) {
            assertThrows(IllegalArgumentException.class, () -> lease.append("note", Json.object().put("seq", 99)));
            assertThrows(IllegalArgumentException.class, () -> lease.append("header", text("x")));
            assertThrows(IllegalArgumentException.class, () -> lease.append(" ", text("x")));
            assertEquals(1, lease.append("note", text("ok")));
        }
        assertEquals(1, records("strict").size());
        assertThrows(IllegalArgumentException.class, () -> repo.create("bad", cwd("a"), Json.object().put("cwd", "/x")));
    }

    @Test
    void appendsFromManyThreadsAreAllKeptEachWithItsOwnSeq() throws Exception {
        int threads = 4, each = 50;
        Set<Long> seqs = java.util.Collections.synchronizedSet(new HashSet<>());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (SessionLease lease = repo.create("parallel", cwd("a"), null)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) seqs.add(lease.append("note", text(thread + ":" + i)));
                }));
            }
            for (Future<?> f : done) f.get();
        } finally {
            pool.shutdown();
        }
        List<ObjectNode> records = records("parallel");
        assertEquals(threads * each, seqs.size(), "no seq given twice");
        assertEquals(threads * each, records.size());
        for (int i = 0; i < records.size(); i++) assertEquals(i + 1, records.get(i).path("seq").asLong(), "stored in seq order");
    }

    @Test
    void aLongSessionIsReadRecordByRecordInOrder() {
        int n = 10_000;
        try (SessionLease lease = repo.create("long", cwd("a"), null)) {
            for (int i = 0; i < n; i++) lease.append("note", text("message " + i));
        }
        long[] expected = {1};
        repo.scan("long", r -> {
            assertEquals(expected[0], r.path("seq").asLong());
            assertEquals("message " + (expected[0] - 1), r.path("text").asText());
            expected[0]++;
        });
        assertEquals(n + 1, expected[0]);
    }

    @Test
    void listingIsNewestFirstFilteredByDirectoryAndPagedWithoutGapsOrRepeats() {
        for (int i = 0; i < 7; i++) session("s" + i, cwd(i % 2 == 0 ? "even" : "odd"), 1);
        repo.create("empty", cwd("odd"), null).close(); // no records: its creation time counts
        clock.advance();
        try (SessionLease lease = repo.lease("s0")) { // s0 is now the most recently updated
            lease.append("title", Json.object().put("text", "Back to s0"));
        }

        Page<SessionSummary> all = repo.list(null, null, 100);
        assertEquals(List.of("s0", "empty", "s6", "s5", "s4", "s3", "s2", "s1"),
                all.items().stream().map(SessionSummary::sessionId).toList());
        assertNull(all.nextCursor());
        SessionSummary s0 = all.items().getFirst();
        assertEquals("Back to s0", s0.title());
        assertEquals(2, s0.records());
        assertEquals(cwd("even"), s0.cwd());
        assertTrue(s0.readable());

        assertEquals(List.of("s0", "s6", "s4", "s2"),
                repo.list(cwd("even"), null, 100).items().stream().map(SessionSummary::sessionId).toList());

        List<String> paged = new ArrayList<>();
        String cursor = null;
        boolean first = true;
        do {
            Page<SessionSummary> page = repo.list(null, cursor, 3);
            assertTrue(page.items().size() <= 3);
            page.items().forEach(s -> paged.add(s.sessionId()));
            cursor = page.nextCursor();
            if (first) session("late", cwd("even"), 1); // created after the first page: does not shift the rest
            first = false;
        } while (cursor != null);
        assertEquals(List.of("s0", "empty", "s6", "s5", "s4", "s3", "s2", "s1"), paged);
        assertEquals("late", repo.list(null, null, 1).items().getFirst().sessionId());
    }

    @Test
    void aForeignCursorOrPageSizeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> repo.list(null, "not-a-cursor", 10));
        assertThrows(IllegalArgumentException.class, () -> repo.list(null, null, 0));
    }

    @Test
    void theLatestSessionOfADirectory() {
        assertTrue(repo.latestFor(cwd("a")).isEmpty());
        session("old", cwd("a"), 2);
        session("other-dir", cwd("b"), 1);
        session("new", cwd("a"), 1);
        assertEquals("new", repo.latestFor(cwd("a")).orElseThrow());
        assertEquals("other-dir", repo.latestFor(cwd("b")).orElseThrow());
    }

    @Test
    void idPrefixesResolveOnlyWhenUnique() {
        session("abc-1", cwd("a"), 0);
        session("abc-2", cwd("a"), 0);
        session("xyz", cwd("a"), 0);
        assertEquals("xyz", repo.resolvePrefix("x"));
        assertEquals("abc-1", repo.resolvePrefix("abc-1"));
        AmbiguousSessionIdException ambiguous = assertThrows(AmbiguousSessionIdException.class, () -> repo.resolvePrefix("abc"));
        assertEquals(List.of("abc-1", "abc-2"), ambiguous.candidates());
        assertThrows(SessionNotFoundException.class, () -> repo.resolvePrefix("q"));
    }

    @Test
    void aDeletedSessionIsGoneAndItsIdFree() {
        session("gone", cwd("a"), 2);
        assertTrue(repo.delete("gone"));
        assertFalse(repo.exists("gone"));
        assertTrue(repo.list(null, null, 10).items().isEmpty());
        assertThrows(SessionNotFoundException.class, () -> repo.lease("gone"));
        try (SessionLease again = repo.create("gone", cwd("b"), null)) {
            assertEquals(1, again.append("note", text("fresh")), "a new session of that id starts over");
        }
    }

    @Test
    void pruningKeepsTheNewestAndNeverTouchesALeasedSession() {
        for (int i = 0; i < 4; i++) session("p" + i, cwd("a"), 1);
        try (SessionLease live = repo.lease("p0")) {
            PruneResult plan = repo.planPrune(PruneRule.keepNewest(1));
            assertEquals(List.of("p2", "p1"), plan.removed().stream().map(SessionSummary::sessionId).toList());
            assertEquals(List.of("p0"), plan.skippedLive().stream().map(SessionSummary::sessionId).toList());
            assertTrue(repo.exists("p1"), "a plan deletes nothing");
            PruneResult done = repo.prune(PruneRule.keepNewest(1));
            assertEquals(plan.removed(), done.removed());
            assertTrue(live.held());
        }
        assertEquals(List.of("p3", "p0"), repo.list(null, null, 10).items().stream().map(SessionSummary::sessionId).toList());
        clock.advance();
        clock.advance();
        assertEquals(List.of("p0"), repo.prune(PruneRule.olderThan(Duration.ofMillis(2500))).removed()
                .stream().map(SessionSummary::sessionId).toList());
    }

    @Test
    void deletingOrPruningASessionRemovesItsCheckpoints() throws Exception {
        session("k0", cwd("a"), 1);
        session("k1", cwd("a"), 1);
        session("k2", cwd("a"), 1);
        List<Path> shadows = new ArrayList<>();
        for (String id : List.of("k0", "k1", "k2")) {
            Path shadow = repo.checkpointDirectory(id).orElseThrow(() -> new AssertionError("this repository keeps checkpoints"));
            CheckpointStore store = new CheckpointStore(shadow);
            store.put(("content of " + id).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            store.append(Json.object().put("t", "turn").put("turn", 1));
            shadows.add(shadow);
        }
        assertNotEquals(shadows.get(0), shadows.get(1), "one shadow store per session");
        assertTrue(repo.delete("k0"));
        assertFalse(java.nio.file.Files.exists(shadows.get(0)), "delete removed the checkpoints");
        assertTrue(java.nio.file.Files.exists(shadows.get(1)), "of that session only");
        repo.prune(PruneRule.keepNewest(1));
        assertFalse(java.nio.file.Files.exists(shadows.get(1)), "prune removed the checkpoints");
        assertTrue(java.nio.file.Files.exists(shadows.get(2)), "the session kept keeps its own");
    }
}
