package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.SessionBusyException;
import cn.agentao.agent.core.repository.SessionExistsException;
import cn.agentao.agent.core.repository.SessionHeader;
import cn.agentao.agent.core.repository.SessionNotFoundException;
import cn.agentao.agent.core.repository.StoredSession;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionStoreTest {
    @TempDir
    Path dir;

    private final TestClock clock = new TestClock("2025-06-01T09:00:00Z");

    private SessionStore store() {
        return new SessionStore(dir.resolve("sessions"), SyncPolicy.FSYNC, clock);
    }

    @Test
    void appendedRecordsReadBackInOrderWithSeqTsAndPayload() {
        SessionStore store = store();
        try (SessionWriter w = store.create("s1", Path.of("/work/proj"), Json.object().put("agentVersion", "0.1"))) {
            assertEquals(1, w.append("user_message", Json.object().put("text", "hello")));
            clock.advance(java.time.Duration.ofSeconds(2));
            ObjectNode call = Json.object().put("toolCallId", "c1").put("title", "Read \"a\nb\"");
            assertEquals(2, w.append("tool_call", call));
            assertEquals(3, w.append("turn_end", null));
        }

        StoredSession s = store.read("s1");
        assertEquals(List.of(), s.warnings());
        assertEquals("s1", s.header().sessionId());
        assertEquals(Path.of("/work/proj"), s.header().cwd());
        assertEquals(SessionHeader.VERSION, s.header().version());
        assertEquals("0.1", s.header().json().get("agentVersion").asText(), "extra header fields are kept");
        assertEquals(List.of("user_message", "tool_call", "turn_end"),
                s.records().stream().map(r -> r.get("type").asText()).toList());
        assertEquals(List.of(1L, 2L, 3L), s.records().stream().map(r -> r.get("seq").asLong()).toList());
        assertEquals("hello", s.records().get(0).get("text").asText());
        assertEquals("Read \"a\nb\"", s.records().get(1).get("title").asText(), "newlines in payloads survive");
        assertEquals("2025-06-01T09:00:02Z", s.records().get(1).get("ts").asText());
    }

    @Test
    void eachRecordIsOneLineAfterTheHeader() throws Exception {
        SessionStore store = store();
        try (SessionWriter w = store.create("s1", dir, null)) {
            w.append("agent_chunk", Json.object().put("text", "line one\nline two\r\n"));
            w.append("agent_chunk", Json.object().put("text", "more"));
        }
        List<String> lines = Files.readAllLines(store.logFile("s1"));
        assertEquals(3, lines.size());
        assertTrue(lines.get(0).startsWith("{\"type\":\"header\",\"format\":\"agent-session\",\"version\":1,"), lines.get(0));
        assertTrue(lines.get(1).startsWith("{\"seq\":1,\"ts\":\"2025-06-01T09:00:00Z\",\"type\":\"agent_chunk\","), lines.get(1));
    }

    @Test
    void reopeningContinuesTheSequence() {
        SessionStore store = store();
        try (SessionWriter w = store.create("s1", dir, null)) {
            w.append("user_message", null);
            w.append("agent_chunk", null);
        }
        try (SessionWriter w = store.lease("s1")) {
            assertEquals(2, w.lastSeq());
            assertEquals(3, w.append("user_message", null));
        }
        assertEquals(3, store.read("s1").records().size());
    }

    @Test
    void reservedFieldsAndTypesAreRefused() {
        try (SessionWriter w = store().create("s1", dir, null)) {
            assertThrows(IllegalArgumentException.class, () -> w.append("agent_chunk", Json.object().put("seq", 7)));
            assertThrows(IllegalArgumentException.class, () -> w.append("header", null));
            assertThrows(IllegalArgumentException.class, () -> w.append(" ", null));
            assertEquals(1, w.append("agent_chunk", null), "refused appends used no seq");
        }
        assertThrows(IllegalArgumentException.class, () -> store().create("s2", dir, Json.object().put("cwd", "/x")));
    }

    @Test
    void invalidIdsNeverBecomePaths() {
        SessionStore store = store();
        for (String bad : List.of("../escape", ".hidden", "a/b", "", "x".repeat(129))) {
            assertThrows(IllegalArgumentException.class, () -> store.create(bad, dir, null), bad);
        }
    }

    @Test
    void creatingAnExistingSessionIsRefused() {
        SessionStore store = store();
        store.create("s1", dir, null).close();
        assertThrows(SessionExistsException.class, () -> store.create("s1", dir, null));
    }

    @Test
    void unknownSessionsAreReportedAsNotFound() {
        SessionStore store = store();
        assertThrows(SessionNotFoundException.class, () -> store.read("nope"));
        assertThrows(SessionNotFoundException.class, () -> store.lease("nope"));
        assertFalse(store.delete("nope"));
        assertEquals(List.of(), store.list(null, null, 10).items(), "a missing directory is an empty store");
    }

    @Test
    void tornLastLineIsSkippedWithAWarningAndCutOffBeforeTheNextAppend() throws Exception {
        SessionStore store = store();
        try (SessionWriter w = store.create("s1", dir, null)) {
            w.append("user_message", Json.object().put("text", "one"));
            w.append("agent_chunk", Json.object().put("text", "two"));
        }
        Files.writeString(store.logFile("s1"), "{\"seq\":3,\"ts\":\"2025-06-01T09:0", StandardOpenOption.APPEND);

        StoredSession torn = store.read("s1");
        assertEquals(2, torn.records().size());
        assertEquals(1, torn.warnings().size());
        assertTrue(torn.warnings().getFirst().contains("line 4: incomplete last line"), torn.warnings().getFirst());

        try (SessionWriter w = store.lease("s1")) {
            assertEquals(3, w.append("agent_chunk", Json.object().put("text", "three")));
        }
        StoredSession repaired = store.read("s1");
        assertEquals(List.of(), repaired.warnings());
        assertEquals(List.of("one", "two", "three"),
                repaired.records().stream().map(r -> r.get("text").asText()).toList());
    }

    @Test
    void aSessionOpenForWritingIsBusyWithinTheSameProcess() {
        SessionStore store = store();
        SessionStore sameDirOtherInstance = store();
        try (SessionWriter w = store.create("s1", dir, null)) {
            assertTrue(store.isLive("s1"));
            SessionBusyException busy = assertThrows(SessionBusyException.class, () -> sameDirOtherInstance.lease("s1"));
            assertTrue(busy.getMessage().contains("s1"), busy.getMessage());
            assertThrows(SessionBusyException.class, () -> store.delete("s1"));
            w.append("user_message", null); // still ours after the refused attempts
        }
        assertFalse(store.isLive("s1"));
        try (SessionWriter w = sameDirOtherInstance.lease("s1")) {
            assertEquals(2, w.append("agent_chunk", null));
        }
    }

    @Test
    void tenThousandRecordsReadWellUnderASecond() {
        SessionStore store = new SessionStore(dir, SyncPolicy.NO_FSYNC);
        try (SessionWriter w = store.create("big", dir, null)) {
            for (int i = 0; i < 10_000; i++) {
                w.append("agent_chunk", Json.object().set("content",
                        Json.object().put("type", "text").put("text", "chunk " + i + " of a long streamed answer ".repeat(4))));
            }
        }
        // how fast is measured by scripts/bench-store.sh, never asserted here
        assertEquals(10_000, store.read("big").records().size());
    }

    @Test
    void exportCopiesTheLogByteForByte() throws Exception {
        SessionStore store = store();
        try (SessionWriter w = store.create("s1", dir, null)) {
            w.append("user_message", Json.object().put("text", "héllo ✓"));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        store.exportLog("s1", out);
        assertEquals(Files.readString(store.logFile("s1")), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void defaultDirectoryFollowsOverrideThenXdgThenHome() {
        assertEquals(Path.of("/srv/sessions"),
                cn.agentao.agent.config.StoreSettings.defaultDirectory(Map.of("AGENT_SESSIONS_DIR", "/srv/sessions", "XDG_DATA_HOME", "/xdg")));
        assertEquals(Path.of("/xdg/agent/sessions"),
                cn.agentao.agent.config.StoreSettings.defaultDirectory(Map.of("XDG_DATA_HOME", "/xdg", "HOME", "/home/ada")));
        assertEquals(Path.of("/home/ada/.local/share/agent/sessions"),
                cn.agentao.agent.config.StoreSettings.defaultDirectory(Map.of("XDG_DATA_HOME", "relative/ignored", "HOME", "/home/ada")));
        assertEquals(Path.of(System.getProperty("user.home"), ".local/share/agent/sessions"),
                cn.agentao.agent.config.StoreSettings.defaultDirectory(Map.of()));
    }
}
