package cn.agentao.agent.cli;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SessionWriter;
import cn.agentao.agent.store.SyncPolicy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionsCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private SessionStore store;

    private int run(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        CommandLine cli = new CommandLine(new SessionsCommand(Map.of("AGENT_SESSIONS_DIR", dir.toString())));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @BeforeEach
    void twoSessions() {
        store = new SessionStore(dir, SyncPolicy.NO_FSYNC, Clock.fixed(Instant.parse("2025-06-01T09:00:00Z"), ZoneOffset.UTC));
        try (SessionWriter w = store.create("aaaa1111", Path.of("/work/calc"), null)) {
            w.append("user_message", Json.object().set("content", Json.mapper().createArrayNode()
                    .add(Json.object().put("type", "text").put("text", "fix the test"))));
            w.append("agent_chunk", Json.object().set("content", Json.object().put("type", "text").put("text", "Done.")));
            w.append("title", Json.object().put("text", "Fix the test"));
        }
        store.create("bbbb2222", Path.of("/work/notes"), null).close();
    }

    @Test
    void listPrintsATableOfSessions() {
        assertEquals(0, run("list"));
        String[] lines = out.toString().split("\n");
        assertEquals(3, lines.length, out.toString());
        assertTrue(lines[0].startsWith("ID") && lines[0].contains("TITLE"), lines[0]);
        assertTrue(out.toString().contains("aaaa1111  2025-06-01 09:00  3        /work/calc   Fix the test"), out.toString());

        assertEquals(0, run("list", "--cwd", "/work/notes"));
        assertFalse(out.toString().contains("aaaa1111"));
        assertTrue(out.toString().contains("bbbb2222"));
    }

    @Test
    void showPrintsTheTranscriptByPrefix() {
        assertEquals(0, run("show", "aaaa"));
        assertTrue(out.toString().contains("User:\n  fix the test\n"), out.toString());
        assertTrue(out.toString().contains("Agent:\n  Done.\n"), out.toString());
    }

    @Test
    void exportWritesTheRawLogOrMarkdown() throws Exception {
        assertEquals(0, run("export", "aaaa1111"));
        assertEquals(Files.readString(dir.resolve("aaaa1111.jsonl")), out.toString());

        Path md = dir.resolve("out.md");
        assertEquals(0, run("export", "aaaa", "--format", "markdown", "-o", md.toString()));
        assertTrue(Files.readString(md).startsWith("# Fix the test\n"));
    }

    @Test
    void errorsAreOneReadableLine() {
        store.create("aaaa9999", dir, null).close();
        assertEquals(1, run("show", "aaaa"));
        assertTrue(err.toString().startsWith("agent sessions show: session id prefix 'aaaa' is ambiguous"), err.toString());
        assertEquals(1, run("show", "zzzz"));
        assertEquals("agent sessions show: no stored session id starts with 'zzzz'\n", err.toString());
    }

    @Test
    void deleteRefusesALiveSessionAndDeletesTheRest() {
        try (SessionWriter ignored = store.lease("bbbb2222")) {
            assertEquals(1, run("delete", "bbbb", "aaaa"));
            assertTrue(err.toString().contains("session bbbb2222 is in use"), err.toString());
            assertEquals("deleted aaaa1111\n", out.toString());
        }
        assertTrue(store.exists("bbbb2222"));
        assertFalse(store.exists("aaaa1111"));
    }

    @Test
    void pruneDryRunDeletesNothing() {
        assertEquals(0, run("prune", "--keep", "1", "--dry-run"));
        assertTrue(out.toString().contains("would delete "), out.toString());
        assertTrue(out.toString().endsWith("Would delete 1 session.\n"), out.toString());
        assertTrue(store.exists("aaaa1111") && store.exists("bbbb2222"));

        assertEquals(0, run("prune", "--older-than", "30d"));
        assertTrue(out.toString().startsWith("deleted aaaa1111  2025-06-01 09:00  Fix the test\n"), out.toString());
        assertTrue(out.toString().endsWith("Deleted 2 sessions.\n"), out.toString());
        assertFalse(store.exists("aaaa1111") || store.exists("bbbb2222"));

        assertEquals(2, run("prune", "--older-than", "soon"), "a usage error");
        assertEquals(2, run("prune"), "a rule is required");
    }
}
