package cn.agentao.agent.security;

import cn.agentao.agent.sandbox.Sandboxes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static cn.agentao.agent.security.SandboxSecurityIT.shell;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Nothing a sandboxed command does runs later outside the sandbox without a question: no git hook or git config
 * key planted for the user's next git command (which the test runs itself, outside the sandbox, with real git),
 * and no script of a trusted project's MCP server rewritten for the next session. Each case asserts that the marker
 * the planted code would create is absent.
 */
class PlantedCodeIT {
    @TempDir
    static Path root;
    static SecurityHarness h;
    static Path config;
    /** The user's own git, outside the sandbox: a HOME of its own, no system config. */
    static Path gitHome;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(Sandboxes.fromEnvironment(System.getenv()).available(),
                "bubblewrap works here (scripts/install-bubblewrap.sh installs it; user namespaces must be allowed)");
        config = root.resolve("config");
        Files.createDirectories(config.resolve("agent"));
        gitHome = Files.createDirectories(root.resolve("git-home"));
        h = SecurityHarness.start(root, Map.of("XDG_CONFIG_HOME", config.toString()));
    }

    @AfterAll
    static void stop() {
        if (h != null) h.close();
    }


    /** Runs git as the user would, outside any sandbox; returns its exit code. */
    static int git(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-c", "user.name=u", "-c", "user.email=u@example.com", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("HOME", gitHome.toString());
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().remove("GIT_DIR");
        Process p = pb.start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "git " + List.of(args));
        return p.exitValue();
    }

    /** A workspace (a repository) with a nested repository {@code lib} holding one commit. */
    static Path workspaceWithLib() throws Exception {
        Path ws = h.newWorkspace();
        assertEquals(0, git(ws, "init", "-q"));
        Path lib = Files.createDirectories(ws.resolve("lib"));
        assertEquals(0, git(lib, "init", "-q"));
        Files.writeString(lib.resolve("a.txt"), "a\n");
        assertEquals(0, git(lib, "add", "a.txt"));
        assertEquals(0, git(lib, "commit", "-q", "-m", "first"));
        assertEquals(0, git(lib, "config", "lib.setting", "kept"));
        return ws;
    }

    static String hook(Path marker) {
        return "printf '#!/bin/sh\\ntouch " + marker + "\\n' > %1$s/hooks/pre-commit && chmod +x %1$s/hooks/pre-commit";
    }

    @Test
    void aHookPlantedInACopyOfANestedRepositoryDoesNotRunAtTheUsersNextCommit() throws Exception {
        Path ws = workspaceWithLib();
        Path marker = root.resolve("marker-copied-hook");
        SecurityHarness.Outcome o = h.runTool(ws, "workspace-write", "run_shell_command",
                shell("mv lib lib.orig && cp -a lib.orig lib && " + hook(marker).formatted("lib/.git")));
        assertFalse(o.asked(), "ran in the sandbox: " + o.questions());
        assertTrue(Files.isDirectory(ws.resolve("lib.orig")), "the command did run: " + o.toolResult());

        Files.writeString(ws.resolve("lib/b.txt"), "b\n");
        assertEquals(0, git(ws.resolve("lib"), "add", "b.txt"));
        assertEquals(0, git(ws.resolve("lib"), "commit", "-q", "-m", "the user's next commit"), "the commit itself works");
        assertFalse(Files.exists(marker), "the planted pre-commit ran at the user's commit");
        assertTrue(o.toolResult().contains("pre-commit"), "the model is told what was disarmed: " + o.toolResult());
        assertFalse(Files.isExecutable(ws.resolve("lib/.git/hooks/pre-commit.disabled-by-agent")), "kept for the user to look at, not runnable");
        assertTrue(Files.readString(ws.resolve("lib/.git/config")).contains("kept"), "the rest of the copy is untouched");
    }

    @Test
    void aHookInARepositoryTheCommandCreatedDoesNotRun() throws Exception {
        Path ws = h.newWorkspace();
        Path marker = root.resolve("marker-new-repo-hook");
        SecurityHarness.Outcome o = h.runTool(ws, "workspace-write", "run_shell_command",
                shell("git init -q sub && " + hook(marker).formatted("sub/.git") + " && echo x > sub/x.txt"));
        assertFalse(o.asked(), "ran in the sandbox: " + o.questions());
        assertTrue(Files.isDirectory(ws.resolve("sub/.git/objects")), "the repository was made: " + o.toolResult());

        assertEquals(0, git(ws.resolve("sub"), "add", "x.txt"));
        assertEquals(0, git(ws.resolve("sub"), "commit", "-q", "-m", "x"));
        assertFalse(Files.exists(marker), "the planted pre-commit ran at the user's commit");
    }

    /** Config keys a command sets in its writable copy of {@code lib/.git}, and the user's git command that would run them. */
    static Stream<Arguments> plantedKeys() {
        return Stream.of(
                Arguments.of("core.fsmonitor", "touch {M}; false", List.of("status")),
                Arguments.of("alias.st", "!touch {M}", List.of("st")),
                Arguments.of("core.hooksPath", "hooks", List.of("commit", "-q", "--allow-empty", "-m", "x")),
                Arguments.of("core.sshCommand", "touch {M}; false", List.of("ls-remote", "ssh://example.invalid/x")),
                Arguments.of("diff.pwn.textconv", "touch {M}; cat", List.of("diff", "HEAD", "--", "a.txt")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plantedKeys")
    void aKeyPlantedInACopiedConfigDoesNotRunAtTheUsersNextGitCommand(String key, String value, List<String> userCommand) throws Exception {
        Path ws = workspaceWithLib();
        Path marker = root.resolve("marker-key-" + ws.getFileName());
        String v = value.replace("{M}", marker.toString());
        String command = "mv lib lib.orig && cp -a lib.orig lib && git -C lib config " + key + " '" + v + "'"
                + " && mkdir -p lib/hooks && printf '#!/bin/sh\\ntouch " + marker + "\\n' > lib/hooks/pre-commit && chmod +x lib/hooks/pre-commit"
                + " && echo '*.txt diff=pwn' > lib/.gitattributes && echo changed >> lib/a.txt";
        SecurityHarness.Outcome o = h.runTool(ws, "workspace-write", "run_shell_command", shell(command));
        assertFalse(o.asked(), "ran in the sandbox: " + o.questions());
        assertTrue(Files.isDirectory(ws.resolve("lib.orig")), "the command did run: " + o.toolResult());

        List<String> args = new ArrayList<>(userCommand);
        git(ws.resolve("lib"), args.toArray(String[]::new));
        assertFalse(Files.exists(marker), key + " ran at the user's git " + userCommand + ": " + o.toolResult());
        String cfg = Files.readString(ws.resolve("lib/.git/config"));
        assertFalse(cfg.contains(v), key + " is gone: " + cfg);
        assertTrue(cfg.contains("kept") && cfg.contains("repositoryformatversion"), "the rest of the config is kept: " + cfg);
        assertTrue(o.toolResult().contains(key.toLowerCase(java.util.Locale.ROOT)), "the model is told: " + o.toolResult());
    }

    @Test
    void ordinaryWorkInANewRepositoryIsLeftAlone() throws Exception {
        Path ws = h.newWorkspace();
        SecurityHarness.Outcome o = h.runTool(ws, "workspace-write", "run_shell_command",
                shell("git init -q sub && git -C sub config user.name someone && git -C sub remote add origin https://example.com/x.git"));
        assertFalse(o.toolResult().contains("disarmed"), o.toolResult());
        String cfg = Files.readString(ws.resolve("sub/.git/config"));
        assertTrue(cfg.contains("someone") && cfg.contains("https://example.com/x.git"), cfg);
    }

    // ------------------------------------------------------------------ a trusted project's MCP server

    private static int trustQuestions() {
        return (int) h.questions.stream().filter(q -> q.path("toolCall").path("toolCallId").asText().startsWith("trust_")).count();
    }

    /** Waits up to 30 s for {@code condition}; returns whether it came. */
    private static boolean await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) return false;
            Thread.sleep(50);
        }
        return true;
    }

    private static String awaitNotice(String sessionId, String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String all = "";
        while (System.nanoTime() < deadline) {
            all = String.join("\n", h.agent.updates(sessionId).stream().map(u -> u.path("content").path("text").asText()).toList());
            if (all.contains(text)) return all;
            Thread.sleep(50);
        }
        fail("no message containing \"" + text + "\" in session " + sessionId + ": " + all);
        return null;
    }

    @Test
    void aTrustedServersScriptRewrittenByASandboxedCommandIsAskedAboutAgain() throws Exception {
        Path ws = h.newWorkspace();
        Path trusted = root.resolve("marker-mcp-trusted");
        Path rewritten = root.resolve("marker-mcp-rewritten");
        Files.createDirectories(ws.resolve(".agent"));
        Files.createDirectories(ws.resolve("mcp"));
        Files.writeString(ws.resolve("mcp/start.sh"), "touch '" + trusted + "'\n");
        Files.writeString(ws.resolve(".agent/mcp.json"), "{\"mcpServers\": {\"tools\": {\"command\": \"sh\", \"args\": [\"mcp/start.sh\"]}}}");
        h.answer("allow_always");
        h.newSession(ws);
        assertTrue(await(() -> Files.exists(trusted)), "the trusted server started");

        h.answer("reject_once");
        int asked = trustQuestions();
        SecurityHarness.Outcome o = h.runTool(ws, "workspace-write", "run_shell_command",
                shell("echo \"touch '" + rewritten + "'\" > mcp/start.sh"));
        assertFalse(o.asked(), "ran in the sandbox, unasked: " + o.questions());
        assertTrue(Files.readString(ws.resolve("mcp/start.sh")).contains(rewritten.toString()), "the script was rewritten: " + o.toolResult());

        String id = h.newSession(ws);
        await(() -> Files.exists(rewritten) || trustQuestions() > asked);
        assertFalse(Files.exists(rewritten), "the rewritten script ran unasked");
        awaitNotice(id, "were not started");
        assertTrue(trustQuestions() > asked, "the next session asks again");
        String question = h.questions.get(h.questions.size() - 1).toString();
        assertTrue(question.contains("mcp/start.sh (changed since you trusted it)"), "the question names the changed file: " + question);
        assertTrue(awaitNotice(id, "mcp/start.sh has changed").contains("wait for your answer again"), "a notice says why");
        assertFalse(Files.exists(rewritten), "the rewritten script ran unasked");
    }
}
