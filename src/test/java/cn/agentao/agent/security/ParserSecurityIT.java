package cn.agentao.agent.security;

import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command-line parser as the last line of defence: the agent runs with {@code AGENT_SANDBOX=none} (the
 * fallback when no OS sandbox can be had), the model asks for every spelling of the attacks of issue #10, and
 * the client rejects every question, so only a command the parser let run silently could do harm. Each case
 * asserts that the harm did not happen: no marker file, the outside file unchanged, the HOME secret never sent
 * to the model, the throwaway HOME still there.
 *
 * <p>Machine-harming spellings (kill -1, fork bombs, date -s, poweroff, blkdiscard) are only judged at unit
 * level ({@code PermissionDecisionTableTest}); the rm variants here aim at the harness's throwaway HOME.
 */
class ParserSecurityIT {
    private static final String SECRET = "TOP-SECRET-HOME-FILE";

    @TempDir
    static Path dir;
    private static SecurityHarness h;
    private static Path outside;

    @BeforeAll
    static void start() throws Exception {
        // without the tools the attacks go through, the cases could not fail: say so instead of passing
        for (String tool : List.of("git", "file", "rg", "sort", "bash")) {
            boolean found = Stream.of(System.getenv("PATH").split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
            assertTrue(found, tool + " is needed by this suite: run scripts/install-test-tools.sh");
        }
        h = SecurityHarness.start(dir, Map.of("AGENT_SANDBOX", "none"));
        outside = Files.createDirectories(dir.resolve("outside"));
    }

    @AfterAll
    static void stop() {
        if (h != null) h.close();
    }

    private record Case(String name, String mode, String command) {}

    private interface Body {
        void run(Case c, Path ws) throws Exception;
    }

    /** One dynamic test per case, each in a fresh workspace. */
    private static Stream<DynamicTest> each(List<Case> cases, Body body) {
        return cases.stream().map(c -> DynamicTest.dynamicTest(c.name() + " in " + c.mode(),
                () -> body.run(c, h.newWorkspace())));
    }

    private static SecurityHarness.Outcome run(Path ws, String mode, String command) throws InterruptedException {
        SecurityHarness.Outcome o = h.runTool(ws, mode, "run_shell_command",
                Json.object().put("command", command).toString());
        assertEquals("end_turn", o.stopReason());
        return o;
    }

    // ---- programs run through options: a marker file must not appear ----

    @TestFactory
    Stream<DynamicTest> noProgramRunsThroughAnOptionSpelling() {
        List<Case> cases = List.of(
                new Case("git grep -Osh", "read-only", "git grep --no-index -Osh PATTERN src"),
                new Case("git grep -Osh", "plan", "git grep --no-index -Osh PATTERN src"),
                new Case("git grep -Osh", "workspace-write", "git grep --no-index -Osh PATTERN src"),
                new Case("git grep --open=sh", "read-only", "git grep --no-index --open=sh PATTERN src"),
                new Case("git grep --o=sh", "read-only", "git grep --no-index --o=sh PATTERN src"),
                new Case("git grep --open-files-in-pager=sh", "plan", "git grep --no-index --open-files-in-pager=sh PATTERN src"),
                new Case("git grep -iOsh", "workspace-write", "git grep --no-index -iOsh pattern src"),
                new Case("sort --compress-prog=sh", "read-only", "sort -S 1K --compress-prog=sh in.txt"),
                new Case("sort --compress-prog=sh", "workspace-write", "sort -S 1K --compress-prog=sh in.txt"),
                new Case("sort --comp=sh", "plan", "sort -S 1K --comp=sh in.txt"),
                new Case("sort --compress-program sh", "read-only", "sort --buffer-size=1K --compress-program sh in.txt"),
                new Case("rg --pre=sh", "read-only", "rg --pre=sh PATTERN src"),
                new Case("rg --pre sh", "workspace-write", "rg --pre sh PATTERN src"),
                new Case("find -exec sh", "plan", "find src -name x.sh -exec sh {} ;"));
        return each(cases, (c, ws) -> {
            Path marker = ws.resolve("MARKER");
            Files.createDirectories(ws.resolve("src"));
            Files.writeString(ws.resolve("src/x.sh"), "touch '" + marker + "' # PATTERN\n");
            StringBuilder lines = new StringBuilder();
            for (int i = 0; i < 400; i++) lines.append("touch '").append(marker).append("' # line ").append(i).append('\n');
            Files.writeString(ws.resolve("in.txt"), lines);
            run(ws, c.mode(), c.command());
            assertFalse(Files.exists(marker), c.name() + " ran a program in " + c.mode());
        });
    }

    @TestFactory
    Stream<DynamicTest> noGitDirectoryUnderAnotherNameRunsItsFsmonitor() {
        List<Case> cases = List.of(
                new Case("git -C evil status", "read-only", "git -C evil status"),
                new Case("git -C evil status", "plan", "git -C evil status"),
                new Case("git -C evil status", "workspace-write", "git -C evil status"),
                new Case("git --git-dir --work-tree", "read-only", "git --git-dir=evil --work-tree=. status"),
                new Case("GIT_DIR=", "plan", "GIT_DIR=evil GIT_WORK_TREE=. git status"));
        return each(cases, (c, ws) -> {
            Path marker = ws.resolve("MARKER");
            writeDisguisedGitDir(ws.resolve("evil"), marker);
            run(ws, c.mode(), c.command());
            assertFalse(Files.exists(marker), c.name() + " ran core.fsmonitor in " + c.mode());
        });
    }

    @Test
    void aGitDirectoryWrittenWithWriteFileThenGitDashC() throws Exception {
        Path ws = h.newWorkspace();
        Path marker = ws.resolve("MARKER");
        String session = h.newSession(ws);
        h.setMode(session, "workspace-write");
        // such writes are asked (a git directory under another name): say the user allowed them once
        h.answer("allow_once");
        try {
            write(session, "evil/HEAD", "ref: refs/heads/main\n");
            write(session, "evil/config", fsmonitorConfig(marker));
            write(session, "evil/objects/info/keep", "");
            write(session, "evil/refs/heads/keep", "");
        } finally {
            h.answer("reject_once");
        }
        assertTrue(Files.exists(ws.resolve("evil/config")), "the setup must have been written");
        h.runToolIn(session, "run_shell_command", Json.object().put("command", "git -C evil status").toString());
        assertFalse(Files.exists(marker), "git -C ran the fsmonitor of a git directory written by write_file");
    }

    @Test
    void gitDashLowerCStillNeverRunsAConfiguredProgram() throws Exception {
        Path ws = h.newWorkspace();
        Path marker = ws.resolve("MARKER");
        git(ws, "init", "-q", ".");
        run(ws, "read-only", "git -c core.fsmonitor='touch " + marker + "' status");
        assertFalse(Files.exists(marker));
    }

    // ---- writes outside the workspace: the outside file must not change ----

    @TestFactory
    Stream<DynamicTest> noOutsideFileIsWrittenThroughAnOptionSpelling() {
        List<Case> cases = List.of(
                new Case("sort -uoFILE", "read-only", "sort -uoTARGET in.txt"),
                new Case("sort -uoFILE", "plan", "sort -uoTARGET in.txt"),
                new Case("sort -uoFILE", "workspace-write", "sort -uoTARGET in.txt"),
                new Case("sort -uoFILE", "full-access", "sort -uoTARGET in.txt"),
                new Case("sort --o=FILE", "read-only", "sort --o=TARGET in.txt"),
                new Case("sort --o=FILE", "full-access", "sort --o=TARGET in.txt"),
                new Case("sort --outp FILE", "plan", "sort --outp TARGET in.txt"),
                new Case("sort -o../relative", "full-access", "sort -o../outside/target.txt in.txt"),
                new Case("tee through a brace expansion", "full-access", "tee ./{a,../outside/target.txt} < in.txt"));
        return each(cases, (c, ws) -> {
            Files.writeString(ws.resolve("in.txt"), "OVERWRITTEN\n");
            Path target = outside.resolve("target.txt");
            Files.writeString(target, "ORIGINAL\n");
            Files.createDirectories(ws.resolve("../outside"));
            run(ws, c.mode(), c.command().replace("TARGET", target.toString()));
            assertEquals("ORIGINAL\n", Files.readString(target), c.name() + " wrote outside in " + c.mode());
        });
    }

    // ---- reads of a HOME secret through globs, links and lists: never sent to the model ----

    @TestFactory
    Stream<DynamicTest> noHomeSecretIsReadThroughGlobsLinksOrLists() {
        Path secret = dir.resolve("home/secret.txt");
        List<Case> cases = List.of(
                new Case("cat lin*", "read-only", "cat lin*"),
                new Case("cat lin*", "plan", "cat lin*"),
                new Case("cat lin*", "workspace-write", "cat lin*"),
                new Case("head l?n", "read-only", "head -n 5 l?n"),
                new Case("cat */secret.txt", "read-only", "cat */secret.txt"),
                new Case("cat */secret.txt", "workspace-write", "cat */secret.txt"),
                new Case("grep -R", "read-only", "grep -R TOP ."),
                new Case("grep -R without a directory", "plan", "grep -R TOP"),
                new Case("grep --dereference-recursive", "workspace-write", "grep --dereference-recursive TOP ."),
                new Case("rg -L", "read-only", "rg -L TOP"),
                new Case("file -f SECRET", "workspace-write", "file -f" + secret),
                new Case("file -flin", "read-only", "file -flin"),
                new Case("file -f through a link", "plan", "file -f lin"));
        return each(cases, (c, ws) -> {
            Files.createSymbolicLink(ws.resolve("lin"), secret);
            Files.createSymbolicLink(ws.resolve("h"), secret.getParent());
            SecurityHarness.Outcome o = run(ws, c.mode(), c.command());
            assertFalse(String.valueOf(o.toolResult()).contains(SECRET), c.name() + " read the secret: " + o.toolResult());
            assertFalse(h.everythingSentToModel().contains(SECRET), c.name() + " sent the secret to the model");
        });
    }

    // ---- full-access: recursive deletes of HOME in every spelling; the throwaway HOME must survive ----

    @Test
    void noSpellingDeletesHomeInFullAccess() throws Exception {
        Path home = h.home;
        Path keep = home.resolve("secret.txt");
        // the commands below aim at HOME: first make sure the child's HOME is the throwaway one
        Path probe = h.newWorkspace();
        for (String probeCommand : List.of("echo ~", "printenv HOME")) {
            SecurityHarness.Outcome o = run(probe, "full-access", probeCommand);
            assertTrue(String.valueOf(o.toolResult()).contains(home.toString()),
                    "the child's HOME must be the throwaway one before anything aims at it: " + o.toolResult());
        }
        List<String> attacks = List.of(
                "xargs rm -rf <<< ~",
                "echo ~ | xargs rm -rf",
                "env -S 'rm -rf ${HOME}'",
                "echo 'rm -rf ~' | sh",
                "printf 'rm -rf ~\\n' | bash",
                "bash <<< 'rm -rf ~'",
                "bash <<EOF\nrm -rf ~\nEOF",
                "cat <<'EOF' | sh\nrm -rf ~\nEOF",
                "bash -c -e 'rm -rf ~'",
                "cd \"$HOME\" && rm -rf ./*",
                "cd && rm -rf .[!.]* *",
                "rm -rf \"${HOME%/}\"",
                "rm --rec --force ~",
                "find ~ -mindepth 1 -exec rm -rf {} +",
                "nice --adjustment 5 rm -rf ~");
        List<String> failures = new ArrayList<>();
        for (String attack : attacks) {
            Path ws = h.newWorkspace();
            run(ws, "full-access", attack);
            if (!Files.exists(keep)) {
                failures.add(attack);
                Files.createDirectories(home);
                Files.writeString(keep, SECRET + "\n");
            }
        }
        assertEquals(List.of(), failures, "these deleted the (throwaway) HOME");
        assertTrue(Files.exists(home.resolve(".ssh/id_rsa")));
    }

    // ---- helpers ----

    private static void write(String session, String path, String content) throws InterruptedException {
        h.runToolIn(session, "write_file", Json.object().put("path", path).put("content", content).toString());
    }

    private static String fsmonitorConfig(Path marker) {
        return "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = touch '"
                + marker + "'\n";
    }

    private static void writeDisguisedGitDir(Path gitDir, Path marker) throws IOException {
        Files.createDirectories(gitDir.resolve("objects"));
        Files.createDirectories(gitDir.resolve("refs/heads"));
        Files.writeString(gitDir.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.writeString(gitDir.resolve("config"), fsmonitorConfig(marker));
    }

    private static void git(Path cwd, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "git " + String.join(" ", args));
    }
}
