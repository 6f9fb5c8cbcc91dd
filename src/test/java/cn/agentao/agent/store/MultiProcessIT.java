package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.StoredSession;
import cn.agentao.agent.core.repository.SessionSummary;

import cn.agentao.agent.core.repository.SessionBusyException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real second JVMs ({@link StoreChild}) sharing the store directory with this one. */
@Timeout(120)
class MultiProcessIT {
    @TempDir
    Path dir;

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() throws InterruptedException {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private Process child(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                StoreChild.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        children.add(p);
        return p;
    }

    private static BufferedReader stdout(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    @Test
    void sessionHeldByAnotherProcessIsBusyUntilThatProcessDies() throws Exception {
        SessionStore store = new SessionStore(dir);
        store.create("shared", dir, null).close();

        Process holder = child("hold", dir.toString(), "shared");
        assertEquals("holding shared", stdout(holder).readLine());

        SessionBusyException busy = assertThrows(SessionBusyException.class, () -> store.lease("shared"));
        assertTrue(busy.getMessage().contains("shared"), busy.getMessage());
        assertTrue(store.isLive("shared"));
        assertThrows(SessionBusyException.class, () -> store.delete("shared"));
        assertEquals(1, store.list(null, null, 10).items().size(), "listing a live session is fine");

        holder.destroyForcibly().waitFor();
        assertFalse(store.isLive("shared"), "the OS released the dead process's lock");
        try (SessionWriter w = store.lease("shared")) {
            assertEquals(1, w.append("user_message", null));
        }
    }

    /** Closing another descriptor of a lock file drops a POSIX process's lock: reads here must not do that. */
    @Test
    void readingAndProbingInTheWritingProcessKeepsItsLock() throws Exception {
        SessionStore store = new SessionStore(dir);
        try (SessionWriter w = store.create("mine", dir, null)) {
            w.append("user_message", null);
            for (int i = 0; i < 3; i++) {
                assertTrue(store.isLive("mine"));
                assertThrows(SessionBusyException.class, () -> new SessionStore(dir).lease("mine"));
                store.read("mine");
                store.list(null, null, 10);
            }
            Process probe = child("try-open", dir.toString(), "mine");
            assertEquals("busy", stdout(probe).readLine());
            assertEquals(0, probe.waitFor());
        }
        Process probe = child("try-open", dir.toString(), "mine");
        assertEquals("opened", stdout(probe).readLine());
    }

    @Test
    void killDashNineLosesNothingThatWasAcknowledged() throws Exception {
        SessionStore store = new SessionStore(dir);
        store.create("crash", dir, null).close();

        // Large records so that the kill may land inside a write (Linux usually finishes a write to the page
        // cache before a SIGKILL takes effect; torn tails themselves are covered by the fixtures and unit tests).
        Process writer = child("append", dir.toString(), "crash", String.valueOf(64 * 1024));
        BufferedReader out = stdout(writer);
        long acknowledged = 0;
        while (acknowledged < 200) {
            acknowledged = Long.parseLong(out.readLine());
        }
        writer.toHandle().destroyForcibly(); // SIGKILL; unlike Process.destroyForcibly it leaves stdout readable
        for (String line; (line = out.readLine()) != null; ) {
            if (!line.isBlank()) acknowledged = Long.parseLong(line.trim());
        }
        writer.waitFor();

        StoredSession s = store.read("crash");
        List<Long> seqs = s.records().stream().map(r -> r.get("seq").asLong()).toList();
        assertTrue(seqs.size() >= acknowledged, "records " + seqs.size() + " < acknowledged " + acknowledged);
        for (int i = 0; i < seqs.size(); i++) {
            assertEquals(i + 1, seqs.get(i), "the records are a gap-free prefix");
        }
        assertTrue(seqs.size() <= acknowledged + 1, "at most the record in flight is beyond what was acknowledged");
        assertTrue(s.warnings().size() <= 1, "only the last line may be torn: " + s.warnings());
        s.warnings().forEach(w -> assertTrue(w.contains("incomplete last line"), w));

        try (SessionWriter w = store.lease("crash")) {
            assertEquals(seqs.size() + 1, w.append("user_message", null), "the session goes on after the crash");
        }
        assertEquals(List.of(), store.read("crash").warnings());
    }

    @Test
    void processesCreatingSessionsAtOnceDoNotInterfere() throws Exception {
        Process a = child("create-many", dir.toString(), "a", "40");
        Process b = child("create-many", dir.toString(), "b", "40");
        SessionStore store = new SessionStore(dir);
        while (a.isAlive() || b.isAlive()) {
            store.list(null, null, 10); // a third process lists meanwhile
        }
        assertEquals("done", stdout(a).readLine());
        assertEquals("done", stdout(b).readLine());

        List<SessionSummary> all = store.list(null, null, 1000).items();
        assertEquals(80, all.size());
        for (SessionSummary summary : all) {
            assertEquals(summary.sessionId(), summary.title());
            assertEquals(2, summary.records());
            StoredSession s = store.read(summary.sessionId());
            assertEquals(List.of(), s.warnings());
            assertEquals("hello from " + summary.sessionId(), s.records().getFirst().get("text").asText());
        }
        assertEquals(40, store.list(Path.of("/work/b"), null, 1000).items().size());
    }
}
