package cn.agentao.agent.security;

import cn.agentao.agent.sandbox.Sandboxes;
import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a sandboxed command sees, through the real agent: the workspace, not the machine (another directory outside
 * it, not under /tmp or the home, is absent), and not the workspace's secrets (every {@code .env*} reads as empty,
 * however it is encoded on the way out, and the agent's own configuration directory is empty). The file tools ask
 * before each read of a {@code .env} file.
 */
class SandboxViewSecurityIT {
    private static final String OTHER = "OTHER-PROJECT-" + Long.toHexString(System.nanoTime());
    private static final String KEY = "sk-live-" + Long.toHexString(Double.doubleToLongBits(Math.random())) + "XyZ";

    @TempDir
    static Path dir;
    static SecurityHarness h;
    /** Another project on this machine: outside the workspace, and not in /tmp or a home the sandbox hides anyway. */
    static Path other;
    static Path config;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(Sandboxes.fromEnvironment(System.getenv()).available(), "bubblewrap works here");
        config = Files.createDirectories(dir.resolve("xdg/agent"));
        Files.writeString(config.resolve("config.json"), "{\"note\": \"" + KEY + "\"}\n");
        h = SecurityHarness.start(dir, Map.of("XDG_CONFIG_HOME", config.getParent().toString()));
        other = Files.createTempDirectory(Files.createDirectories(Path.of("/var/tmp")), "agent-other-project");
        Files.writeString(other.resolve(".env"), "API_KEY=" + OTHER + "\n");
        Files.writeString(other.resolve("data.txt"), OTHER + "\n");
    }

    @AfterAll
    static void stop() throws Exception {
        if (h != null) h.close();
        if (other != null) {
            try (Stream<Path> all = Files.walk(other).sorted(java.util.Comparator.reverseOrder())) {
                for (Path p : (Iterable<Path>) all::iterator) Files.deleteIfExists(p);
            }
        }
    }

    @BeforeEach
    void rejectByDefault() {
        h.answer("reject_once");
    }

    static String shell(String command) {
        return Json.object().put("command", command).toString();
    }

    static Stream<Arguments> outsideReads() {
        List<String> reads = List.of("cat {O}/.env", "cat {O}/data.txt", "grep -R OTHER-PROJECT {O}", "grep -rh . {O}",
                "printf '%s\\n' {O}/data.txt {O}/.env > /tmp/names && file -f /tmp/names", "head -c 200 {O}/*");
        List<Arguments> out = new ArrayList<>();
        for (String mode : List.of("read-only", "plan", "workspace-write")) for (String r : reads) out.add(Arguments.of(mode, r));
        return out.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("outsideReads")
    void anotherDirectoryOutsideTheWorkspaceIsNotThere(String mode, String read) throws Exception {
        Path ws = h.newWorkspace();
        String command = read.replace("{O}", other.toString());
        SecurityHarness.Outcome o = h.runTool(ws, mode, "run_shell_command", shell(command));
        assertNotNull(o.toolResult());
        assertFalse(o.toolResult().contains(OTHER), command + ": " + o.toolResult());
        assertFalse(o.toolResult().contains("ASCII text"), "file(1) could not open it: " + o.toolResult());
        if (mode.equals("workspace-write")) {
            // the read is asked like any other: the question to run it outside the sandbox, here rejected
            for (var q : o.questions()) assertTrue(q.path("toolCall").path("title").asText().contains("outside the sandbox"), q.toString());
        } else {
            // read-only modes never leave the sandbox: at most the question to let it read that path, here rejected
            for (var q : o.questions()) assertTrue(q.path("toolCall").path("title").asText().startsWith("Let the sandbox read "), q.toString());
        }
        assertFalse(h.everythingSentToModel().contains(OTHER), "nothing of the other project reached the model");
    }

    /**
     * In read-only and plan, a command that failed because it read a path the sandbox hides asks to run again in the
     * same read-only sandbox with that file or directory shown: allowed, the model gets what it read (and the
     * command still writes nothing, and a .env inside the directory still reads as empty); rejected, it gets nothing.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"read-only", "plan"})
    void aHiddenReadIsAskedInReadOnlyModesAndRunsAgainInTheSandboxWithThatPath(String mode) throws Exception {
        Path ws = h.newWorkspace();
        String shared = "SHOWN-AFTER-A-QUESTION-" + mode;
        Path data = Files.createDirectories(other.resolve("shared-" + mode));
        Files.writeString(data.resolve("notes.txt"), shared + "\n");
        Files.writeString(data.resolve(".env"), "API_KEY=" + OTHER + "\n");

        h.answer("reject_once");
        SecurityHarness.Outcome denied = h.runTool(ws, mode, "run_shell_command", shell("cat " + data + "/notes.txt"));
        assertEquals(1, denied.questions().size(), denied.toolResult());
        String title = denied.questions().get(0).path("toolCall").path("title").asText();
        assertTrue(title.startsWith("Let the sandbox read " + data.resolve("notes.txt") + " (read-only)?"), title);
        List<String> kinds = new ArrayList<>();
        denied.questions().get(0).path("options").forEach(x -> kinds.add(x.path("kind").asText()));
        assertEquals(List.of("allow_once", "reject_once"), kinds, "asked every time, never remembered");
        assertFalse(denied.toolResult().contains(shared), denied.toolResult());
        assertTrue(denied.toolResult().contains("declined"), denied.toolResult());

        h.answer("allow_once");
        SecurityHarness.Outcome file = h.runTool(ws, mode, "run_shell_command", shell("cat " + data + "/notes.txt"));
        assertEquals(1, file.questions().size(), file.toolResult());
        assertTrue(file.toolResult().contains("Run again in the read-only sandbox") && file.toolResult().contains(shared), file.toolResult());

        // a directory: shown read-only, with its secrets still empty; nothing can be written there
        Path marker = data.resolve("written");
        SecurityHarness.Outcome dir = h.runTool(ws, mode, "run_shell_command",
                shell("grep -r . " + data + "; touch " + marker));
        assertEquals(1, dir.questions().size(), dir.toolResult());
        assertTrue(dir.questions().get(0).path("toolCall").path("title").asText().startsWith("Let the sandbox read " + data + " "), dir.toString());
        assertTrue(dir.toolResult().contains(shared), dir.toolResult());
        assertFalse(dir.toolResult().contains(OTHER), "a .env in the shown directory reads as empty: " + dir.toolResult());
        assertFalse(Files.exists(marker), "read-only: nothing was written");
        assertFalse(h.everythingSentToModel().contains(OTHER));
    }

    @Test
    void aReadOutsideApprovedInWorkspaceWriteRunsOutsideTheSandbox() throws Exception {
        Path ws = h.newWorkspace();
        h.answer("allow_once");
        Files.writeString(other.resolve("shared.txt"), "SHARED-WITH-APPROVAL\n"); // not the secret the other cases look for
        SecurityHarness.Outcome o = h.runTool(ws, "workspace-write", "run_shell_command", shell("cat " + other + "/shared.txt"));
        assertEquals(1, o.questions().size(), o.toolResult());
        assertTrue(o.toolResult().contains("Run again outside the sandbox") && o.toolResult().contains("SHARED-WITH-APPROVAL"), o.toolResult());
    }

    /** A workspace with the key in .env at the top, in .env.local, and in a .env two levels down. */
    static Path workspaceWithSecrets() throws Exception {
        Path ws = h.newWorkspace();
        Files.writeString(ws.resolve(".env"), "OPENAI_API_KEY=" + KEY + "\n");
        Files.writeString(ws.resolve(".env.local"), "OPENAI_API_KEY=" + KEY + "\n");
        Path deep = Files.createDirectories(ws.resolve("services/api"));
        Files.writeString(deep.resolve(".env"), "DB_PASSWORD=" + KEY + "\n");
        Files.writeString(ws.resolve("README.md"), "hello\n");
        return ws;
    }

    /** The key and the forms the commands below turn it into. */
    static List<String> forms() {
        byte[] line = ("OPENAI_API_KEY=" + KEY + "\n").getBytes(StandardCharsets.UTF_8);
        String hex = HexFormat.of().formatHex(KEY.getBytes(StandardCharsets.UTF_8));
        return List.of(KEY, new StringBuilder(KEY).reverse().toString(), Base64.getEncoder().encodeToString(line),
                Base64.getEncoder().encodeToString(KEY.getBytes(StandardCharsets.UTF_8)), hex.substring(0, 16), KEY.substring(8, 20));
    }

    static Stream<Arguments> encodedReads() {
        List<String> reads = List.of("base64 -w0 .env", "rev .env", "xxd .env", "od -c .env.local", "base64 -w0 .env.local",
                "rev services/api/.env", "xxd services/api/.env", "cat services/*/.env | base64", "tar cf - . | base64 -w0");
        List<Arguments> out = new ArrayList<>();
        for (String mode : List.of("read-only", "workspace-write")) for (String r : reads) out.add(Arguments.of(mode, r));
        return out.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("encodedReads")
    void secretsReadAsEmptyHoweverTheyAreEncoded(String mode, String read) throws Exception {
        Path ws = workspaceWithSecrets();
        String command = read;
        SecurityHarness.Outcome o = h.runTool(ws, mode, "run_shell_command", shell(command));
        assertNotNull(o.toolResult());
        String sent = h.everythingSentToModel();
        for (String f : forms()) {
            assertFalse(o.toolResult().contains(f), command + " revealed " + f + ": " + o.toolResult());
            assertFalse(sent.contains(f), command + ": " + f + " reached the model");
        }
        assertEquals("OPENAI_API_KEY=" + KEY + "\n", Files.readString(ws.resolve(".env")), "the file itself is untouched");
    }

    /** XDG_CONFIG_HOME points outside the home; a workspace holding it shows that directory empty. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"read-only", "workspace-write"})
    void theAgentsOwnConfigurationDirectoryIsEmptyWhereverItIs(String mode) throws Exception {
        SecurityHarness.Outcome o = h.runTool(dir, mode, "run_shell_command",
                shell("ls -a xdg/agent; cat xdg/agent/config.json | rev; grep -r . xdg | base64 -w0"));
        for (String f : List.of(KEY, new StringBuilder(KEY).reverse().toString())) {
            assertFalse(o.toolResult().contains(f), f + ": " + o.toolResult());
        }
        assertFalse(o.asked(), o.toolResult());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"read-only", "workspace-write", "full-access"})
    void readFileOfADotEnvIsAskedEveryTime(String mode) throws Exception {
        Path ws = h.newWorkspace(); // its own key: the allowed reads send it to the model
        String key = "sk-allowed-" + mode;
        Files.writeString(ws.resolve(".env"), "OPENAI_API_KEY=" + key + "\n");
        Files.writeString(Files.createDirectories(ws.resolve("services/api")).resolve(".env"), "DB_PASSWORD=" + key + "\n");
        String id = h.newSession(ws);
        h.setMode(id, mode);
        for (String path : List.of(".env", "services/api/.env")) {
            h.answer("reject_once");
            SecurityHarness.Outcome rejected = h.runToolIn(id, "read_file", Json.object().put("path", path).toString());
            assertEquals(1, rejected.questions().size(), path + ": " + rejected.toolResult());
            assertFalse(rejected.toolResult().contains(key), rejected.toolResult());
            List<String> kinds = new ArrayList<>();
            rejected.questions().get(0).path("options").forEach(x -> kinds.add(x.path("kind").asText()));
            assertEquals(List.of("allow_once", "reject_once"), kinds, "never remembered");
            h.answer("allow_once");
            SecurityHarness.Outcome allowed = h.runToolIn(id, "read_file", Json.object().put("path", path).toString());
            assertEquals(1, allowed.questions().size());
            assertTrue(allowed.toolResult().contains(key), "read once allowed: " + allowed.toolResult());
            SecurityHarness.Outcome again = h.runToolIn(id, "read_file", Json.object().put("path", path).toString());
            assertEquals(1, again.questions().size(), "asked again: " + again.toolResult());
        }
    }

    @Test
    void grepOfTheTreePassesOverDotEnvFilesAndSaysSo() throws Exception {
        Path ws = workspaceWithSecrets();
        SecurityHarness.Outcome o = h.runTool(ws, "read-only", "grep", Json.object().put("pattern", "KEY|PASSWORD|hello").toString());
        assertFalse(o.asked());
        assertFalse(o.toolResult().contains(KEY), o.toolResult());
        assertTrue(o.toolResult().contains("README.md"), "the rest is searched: " + o.toolResult());
        assertTrue(o.toolResult().contains("3 .env files were not searched"), o.toolResult());
        SecurityHarness.Outcome explicit = h.runTool(ws, "read-only", "grep", Json.object().put("pattern", "KEY").put("path", ".env").toString());
        assertEquals(1, explicit.questions().size(), "an explicit path is asked: " + explicit.toolResult());
        assertFalse(explicit.toolResult().contains(KEY), explicit.toolResult());
    }

    @Test
    void theKeyNeverReachedTheModel() {
        assertFalse(h.everythingSentToModel().contains(KEY));
        assertFalse(h.everythingSentToModel().contains(OTHER));
    }
}
