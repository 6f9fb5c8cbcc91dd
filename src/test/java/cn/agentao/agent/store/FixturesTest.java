package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.SessionStoreException;

import cn.agentao.agent.core.repository.SessionCorruptException;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.core.repository.StoredSession;
import cn.agentao.agent.core.repository.UnsupportedSessionVersionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sample logs documented in docs/session-format.md, read as a user's store would hold them. */
class FixturesTest {
    private static final String[] ALL = {"good", "torn-last-line", "corrupt-middle-line", "future-version", "empty"};

    @TempDir
    Path dir;

    private SessionStore storeWith(String... fixtures) {
        Fixtures.copyInto(dir, fixtures);
        return new SessionStore(dir, SyncPolicy.FSYNC);
    }

    @Test
    void goodSessionReadsCompletelyAndKeepsUnknownRecordTypes() {
        StoredSession s = storeWith("good").read("good");
        assertEquals(List.of(), s.warnings());
        assertEquals(15, s.records().size());
        assertEquals(Path.of("/home/ada/projects/calc"), s.header().cwd());
        assertEquals("Calculator test failure", s.title().orElseThrow());
        assertEquals("a record type this reader does not know: kept, and ignored",
                s.records().stream().filter(r -> r.get("type").asText().equals("x_annotation"))
                        .findFirst().orElseThrow().get("note").asText());
    }

    @Test
    void tornLastLineIsSkippedWithAWarning() {
        StoredSession s = storeWith("torn-last-line").read("torn-last-line");
        assertEquals(3, s.records().size());
        assertEquals(1, s.warnings().size());
        assertTrue(s.warnings().getFirst().startsWith("line 5: incomplete last line"), s.warnings().getFirst());
    }

    @Test
    void corruptMiddleLineIsSkippedWithAWarningAndTheRestIsRead() {
        StoredSession s = storeWith("corrupt-middle-line").read("corrupt-middle-line");
        assertEquals(List.of(1L, 3L, 4L, 5L), s.records().stream().map(r -> r.get("seq").asLong()).toList());
        assertEquals(1, s.warnings().size());
        assertTrue(s.warnings().getFirst().startsWith("line 3: not valid JSON"), s.warnings().getFirst());
        assertEquals("Todo summary", s.title().orElseThrow());
    }

    @Test
    void futureVersionIsRefusedForThatSessionOnly() {
        SessionStore store = storeWith("future-version", "good");
        UnsupportedSessionVersionException e = assertThrows(UnsupportedSessionVersionException.class,
                () -> store.read("future-version"));
        assertEquals(2, e.version());
        assertTrue(e.getMessage().contains("future-version") && e.getMessage().contains("upgrade"), e.getMessage());
        assertThrows(UnsupportedSessionVersionException.class, () -> store.lease("future-version"));
        assertEquals(15, store.read("good").records().size());
    }

    @Test
    void emptyFileIsReportedCorrupt() {
        SessionStore store = storeWith("empty");
        SessionCorruptException e = assertThrows(SessionCorruptException.class, () -> store.read("empty"));
        assertTrue(e.getMessage().contains("empty"), e.getMessage());
    }

    @Test
    void listShowsEverySessionAndExplainsTheUnreadableOnes() {
        SessionStore store = storeWith(ALL);
        Map<String, SessionSummary> listed = store.list(null, null, 100).items().stream()
                .collect(Collectors.toMap(SessionSummary::sessionId, s -> s));
        assertEquals(ALL.length, listed.size());

        assertNull(listed.get("good").problem());
        assertEquals("Calculator test failure", listed.get("good").title());
        assertEquals(15, listed.get("good").records());
        assertEquals("2025-06-01T09:00:21.600Z", listed.get("good").updatedAt().toString());
        assertEquals(3, listed.get("torn-last-line").records());
        assertEquals(4, listed.get("corrupt-middle-line").records());
        assertEquals("Todo summary", listed.get("corrupt-middle-line").title());

        assertTrue(listed.get("future-version").problem().contains("version 2"));
        assertEquals(Path.of("/home/ada/projects/calc"), listed.get("future-version").cwd());
        assertTrue(listed.get("empty").problem().contains("empty"));
    }

    @Test
    void aLogThatCannotBeReadAtAllSpoilsOnlyItself() throws Exception {
        SessionStore store = storeWith("good");
        Files.createDirectory(dir.resolve("odd.jsonl")); // reading it fails with an I/O error
        Map<String, SessionSummary> listed = store.list(null, null, 100).items().stream()
                .collect(Collectors.toMap(SessionSummary::sessionId, s -> s));
        assertTrue(listed.get("odd").problem().contains("odd"), listed.get("odd").problem());
        assertNull(listed.get("good").problem());
        assertThrows(SessionStoreException.class, () -> store.read("odd"));
        assertEquals(15, store.read("good").records().size());
    }
}
