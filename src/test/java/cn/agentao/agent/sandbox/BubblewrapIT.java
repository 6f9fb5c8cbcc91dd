package cn.agentao.agent.sandbox;

import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.util.Cancellation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The bwrap argv, and real runs through the local runner (skipped where bubblewrap cannot run). */
class BubblewrapIT {
    @TempDir
    Path dir;

    /** A directory outside /tmp (which is hidden anyway), as /srv/users/me or /data/u would be: in the build directory. */
    /**
     * A directory outside every place the sandbox hides anyway ({@code /tmp}, {@code /run}, {@code /home},
     * {@code /root}): the build directory, unless the clone itself lives in one of those (CI may clone under
     * /tmp, a developer under /home), then {@code /var/tmp}.
     */
    private static Path outsideTmp(String prefix) throws java.io.IOException {
        Path target = Files.createDirectories(Path.of("target")).toAbsolutePath().toRealPath();
        boolean hiddenAnyway = List.of("/tmp", "/run", "/home", "/root").stream().anyMatch(h -> target.startsWith(h));
        Path d = Files.createTempDirectory(hiddenAnyway ? Path.of("/var/tmp") : target, "agent-" + prefix);
        d.toFile().deleteOnExit();
        return d;
    }

    private Bubblewrap bwrap(Path home) {
        return new Bubblewrap(Bubblewrap.BWRAP, List.of(home));
    }

    @Test
    void theArgvDropsEverythingHidesTheHomeAndProtectsTheAgentsFiles() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(ws.resolve(".git"));
        Path home = outsideTmp("home");
        List<String> a = bwrap(home).argv("make", ws, new SandboxPolicy(List.of(ws), true, false));
        String line = String.join(" ", a);
        assertEquals("/usr/bin/bwrap", a.get(0), "never from PATH");
        for (String must : List.of("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop ALL", "--ro-bind /usr /usr",
                "--tmpfs /tmp", "--tmpfs " + home, "--json-status-fd 2")) {
            assertTrue(line.contains(must), must + " in " + line);
        }
        for (String never : List.of("--ro-bind / /", "/var", "/srv", "/mnt", "/media", "/run ", "/home ")) {
            assertFalse(line.contains(never), "the machine is not shown: " + never + " in " + line);
        }
        assertFalse(line.contains("--share-net"), line);
        Path real = ws.toRealPath();
        assertTrue(line.indexOf("--bind " + real + " " + real) > line.indexOf("--tmpfs /tmp"), "the root is bound after /tmp is hidden");
        assertTrue(line.contains("--ro-bind " + real.resolve(".git") + " " + real.resolve(".git")), line);
        for (String missing : List.of(".env", ".envrc", ".agent", "AGENTS.md", "AGENTAO.md", "CLAUDE.md")) {
            assertFalse(line.contains(real.resolve(missing).toString()), "a missing protected name is not masked: " + line);
        }
        assertEquals(List.of("bash", "-c", "make"), a.subList(a.size() - 3, a.size()));
    }

    @Test
    void everyEnvFileAndEveryCaseOfAProtectedNameStaysReadOnly() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        for (String n : List.of(".env.local", ".env.production", "agents.md", "Agentao.MD", "notes.md")) Files.writeString(ws.resolve(n), "x");
        String line = String.join(" ", bwrap(dir.resolve("home")).argv("ls", ws, new SandboxPolicy(List.of(ws), true, false)));
        Path real = ws.toRealPath();
        for (String n : List.of(".env.local", ".env.production", "agents.md", "Agentao.MD")) {
            assertTrue(line.contains("--ro-bind " + real.resolve(n) + " " + real.resolve(n)), n + ": " + line);
        }
        assertFalse(line.contains(real.resolve("notes.md").toString()), line);
    }

    @Test
    void nestedRepositoriesAndAGitDirectoryUnderAnotherNameStayReadOnly() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.createDirectories(ws.resolve("sub/.git/hooks"));
        Files.createDirectories(ws.resolve("libs/a/b/.git"));
        Files.createDirectories(ws.resolve("mod"));
        Files.writeString(ws.resolve("mod/.git"), "gitdir: ../.git/modules/mod\n");
        Files.createDirectories(ws.resolve("bare.git/objects"));
        Files.createDirectories(ws.resolve("bare.git/refs"));
        Files.writeString(ws.resolve("bare.git/HEAD"), "ref: refs/heads/main\n");
        Files.createDirectories(ws.resolve("node_modules/pkg/.git"));
        Files.createDirectories(ws.resolve("plain/objects")); // not a repository: no HEAD, no refs
        String line = String.join(" ", bwrap(dir.resolve("home")).argv("make", ws, new SandboxPolicy(List.of(ws), true, false)));
        Path real = ws.toRealPath();
        for (String p : List.of("sub/.git", "libs/a/b/.git", "mod/.git", "bare.git")) {
            assertTrue(line.contains("--ro-bind " + real.resolve(p) + " " + real.resolve(p)), p + ": " + line);
        }
        assertFalse(line.contains(real.resolve("node_modules").toString()), "dependency directories are not walked: " + line);
        assertFalse(line.contains(real.resolve("plain").toString()), line);
        assertFalse(line.contains(real.resolve(".git/hooks").toString()), "the top .git is not walked: " + line);
    }

    @Test
    void hookConfigurationsThatExistStayReadOnlyAtTheRootAndInNestedRepositories() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(ws.resolve(".git"));
        Files.writeString(ws.resolve(".git/config"), "[core]\n\thooksPath = tools/hooks\n");
        Files.createDirectories(ws.resolve("tools/hooks"));
        Files.createDirectories(ws.resolve(".husky"));
        Files.writeString(ws.resolve(".pre-commit-config.yaml"), "repos: []\n");
        Files.createDirectories(ws.resolve("sub/.git"));
        Files.writeString(ws.resolve("sub/lefthook.yml"), "pre-commit: {}\n");
        Files.writeString(ws.resolve("lefthook.yml.bak"), "x\n");
        String line = String.join(" ", bwrap(dir.resolve("home")).argv("make", ws, new SandboxPolicy(List.of(ws), true, false)));
        Path real = ws.toRealPath();
        for (String p : List.of(".husky", ".pre-commit-config.yaml", "sub/lefthook.yml", "tools/hooks")) {
            assertTrue(line.contains("--ro-bind " + real.resolve(p) + " " + real.resolve(p)), p + ": " + line);
        }
        assertFalse(line.contains(".githooks") || line.contains("lefthook.yml.bak"), "missing ones are not masked: " + line);
    }

    @Test
    void theRepositoryTheCommandRunsInStaysReadOnlyEvenWhereTheWalkDoesNotGo() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path repo = Files.createDirectories(ws.resolve("node_modules/pkg"));
        Files.createDirectories(repo.resolve(".git"));
        Path cwd = Files.createDirectories(repo.resolve("src"));
        String line = String.join(" ", bwrap(dir.resolve("home")).argv("git commit", cwd, new SandboxPolicy(List.of(ws), true, false)));
        Path git = repo.toRealPath().resolve(".git");
        assertTrue(line.contains("--ro-bind " + git + " " + git), line);
    }

    @Test
    void readOnlyBindsTheRootsReadOnlyAndProtectsNothingElse() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        String line = String.join(" ", bwrap(dir.resolve("home")).argv("ls", ws, new SandboxPolicy(List.of(ws), false, false)));
        assertTrue(line.contains("--ro-bind " + ws.toRealPath() + " " + ws.toRealPath()), line);
        assertFalse(line.contains("--bind " + ws.toRealPath()) && !line.contains("--ro-bind " + ws.toRealPath()), line);
    }

    @Test
    void aHomeInsideTheWorkspaceStaysHidden() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path home = Files.createDirectories(ws.resolve("home"));
        List<String> a = bwrap(home).argv("ls", ws, new SandboxPolicy(List.of(ws), true, false));
        String line = String.join(" ", a);
        assertTrue(line.lastIndexOf("--tmpfs " + home.toAbsolutePath()) > line.indexOf("--bind " + ws.toRealPath()), line);
    }

    @Test
    void aWorkspaceThatIsTheHomeFailsClosedInEveryMode() throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path link = Files.createSymbolicLink(dir.resolve("home-link"), home);
        for (boolean writable : List.of(false, true)) {
            for (Path root : List.of(home, link)) {
                Sandbox.SandboxException e = assertThrows(Sandbox.SandboxException.class,
                        () -> bwrap(home).argv("ls", root, new SandboxPolicy(List.of(root), writable, false)), root.toString());
                assertTrue(e.getMessage().contains("hides"), e.getMessage());
            }
        }
    }

    @Test
    void aWorkspaceAtTheFilesystemRootFailsClosedInEveryMode() {
        Path home = dir.resolve("home");
        for (boolean writable : List.of(false, true)) {
            Sandbox.SandboxException e = assertThrows(Sandbox.SandboxException.class,
                    () -> bwrap(home).argv("ls", Path.of("/"), new SandboxPolicy(List.of(Path.of("/")), writable, false)));
            assertTrue(e.getMessage().contains("filesystem root"), e.getMessage());
        }
    }

    @Test
    void aWorkspaceAboveTheHomeKeepsTheHomeAndTmpHidden() throws Exception {
        Path top = outsideTmp("top");
        Path home = Files.createDirectories(top.resolve("u"));
        Files.writeString(home.resolve("secret.txt"), "SECRET\n");
        String line = String.join(" ", bwrap(home).argv("ls", top, new SandboxPolicy(List.of(top), true, false)));
        assertTrue(line.lastIndexOf("--tmpfs " + home.toRealPath()) > line.indexOf("--bind " + top.toRealPath()), line);
        real();
        CommandRunner.Result r = run(new Bubblewrap(Bubblewrap.BWRAP, List.of(home)), "cat u/secret.txt; echo x > u/new", top, true);
        assertFalse(r.output().contains("SECRET"), r.output());
        assertFalse(Files.exists(home.resolve("new")), r.output());
        Files.delete(home.resolve("secret.txt"));
        Files.delete(home);
    }

    @Test
    void aMissingHiddenDirectoryGetsNoMountPoint() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path gone = Path.of("target/no/such/home").toAbsolutePath(); // outside /tmp, which is hidden anyway
        String line = String.join(" ", bwrap(gone).argv("ls", ws, new SandboxPolicy(List.of(ws), false, false)));
        assertFalse(line.contains(gone.toString()), line);
    }

    @Test
    void aSymlinkedProtectedPathFailsClosed() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.createSymbolicLink(ws.resolve(".agent"), Files.createDirectories(ws.resolve("decoy")));
        Sandbox.SandboxException e = assertThrows(Sandbox.SandboxException.class,
                () -> bwrap(dir).argv("ls", ws, new SandboxPolicy(List.of(ws), true, false)));
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    }

    // ---- real runs ----

    private static Sandbox real() {
        Sandboxes s = Sandboxes.fromEnvironment(System.getenv());
        assumeTrue(s.available() && s.sandbox().orElseThrow() instanceof Bubblewrap, "bubblewrap works here");
        return s.sandbox().orElseThrow();
    }

    private CommandRunner.Result run(Sandbox s, String command, Path ws, boolean writable) throws Exception {
        return new LocalCommandRunner().run(new CommandRunner.Spec(command, ws, Duration.ofSeconds(30), 64 * 1024,
                new Confinement(s, new SandboxPolicy(List.of(ws), writable, false))), new CommandRunner.Listener() { }, Cancellation.NONE);
    }

    @Test
    void readOnlyGivesTheOperatingSystemsOwnErrorAndChangesNothing() throws Exception {
        Sandbox s = real();
        Path ws = Files.createDirectories(dir.resolve("ro"));
        CommandRunner.Result r = run(s, "touch made; echo out; echo err >&2; exit 7", ws, false);
        assertEquals(7, r.exitCode());
        assertTrue(r.output().contains("Read-only file system") && r.output().contains("out") && r.output().contains("err"), r.output());
        assertNull(r.sandboxFailure());
        assertFalse(Files.exists(ws.resolve("made")));
    }

    @Test
    void workspaceWriteWritesTheWorkspaceAndTheProtectedNamesItCreatesAreMovedAside() throws Exception {
        Sandbox s = real();
        Path ws = Files.createDirectories(dir.resolve("rw"));
        CreatedProtectedNames created = CreatedProtectedNames.before(List.of(ws));
        CommandRunner.Result r = run(s, "ls -a; echo ok > made && echo x > .env; mkdir .agent; echo y > AGENTS.md", ws, true);
        List<String> moved = created.after();
        assertEquals("ok\n", Files.readString(ws.resolve("made")), r.output());
        for (String name : SandboxPolicy.PROTECTED_NAMES) {
            assertFalse(r.output().contains(name), "nothing in place of a missing " + name + ": " + r.output());
            assertFalse(Files.exists(ws.resolve(name), java.nio.file.LinkOption.NOFOLLOW_LINKS), name + " left: " + r.output());
        }
        assertEquals("y\n", Files.readString(ws.resolve("AGENTS.md.disabled-by-agent")));
        assertEquals(3, moved.size(), moved.toString());
    }

    @Test
    void aSecretsFileDeepInTheTreeOrWrittenBetweenTwoCommandsReadsAsEmpty() throws Exception {
        Sandbox s = real();
        Path ws = Files.createDirectories(dir.resolve("deep-secrets")).toRealPath();
        Path deep = Files.createDirectories(ws.resolve("a/b/c/d/e/f/g/h"));
        Files.writeString(deep.resolve(".env"), "KEY=deep-secret-1\n");
        CommandRunner.Result first = run(s, "cat a/b/c/d/e/f/g/h/.env; echo end", ws, false);
        assertEquals("end\n", first.output(), "eight levels down: " + first.output());

        Path later = Files.createDirectories(ws.resolve("services/api/config/x/y/z"));
        Files.writeString(later.resolve(".env.local"), "KEY=written-between-commands\n"); // as a tool run outside the sandbox would
        CommandRunner.Result second = run(s, "cat services/api/config/x/y/z/.env.local; grep -r KEY . ; echo end", ws, true);
        assertEquals("end\n", second.output(), "written after the first command: " + second.output());
        assertEquals("KEY=written-between-commands\n", Files.readString(later.resolve(".env.local")), "the file itself is untouched");
    }

    @Test
    void aNestedRepositorysHooksCannotBePlanted() throws Exception {
        Sandbox s = real();
        Path ws = Files.createDirectories(dir.resolve("nested"));
        Files.createDirectories(ws.resolve("sub/.git/hooks"));
        CommandRunner.Result r = run(s, "echo 'touch /tmp/pwned' > sub/.git/hooks/pre-commit; echo ok > sub/made", ws, true);
        assertFalse(Files.exists(ws.resolve("sub/.git/hooks/pre-commit")), r.output());
        assertEquals("ok\n", Files.readString(ws.resolve("sub/made")), "the rest of the sub-project stays writable: " + r.output());
    }

    @Test
    void theHomeIsHiddenButItsToolChainsShowReadOnly() throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        Files.writeString(home.resolve("secret.txt"), "SECRET\n");
        Files.createDirectories(home.resolve(".m2/repository/org"));
        Files.writeString(home.resolve(".m2/repository/org/lib.pom"), "<project/>\n");
        Files.writeString(home.resolve(".m2/settings.xml"), "<password>SECRET</password>\n");
        Sandbox s = new Bubblewrap(Bubblewrap.BWRAP, List.of(home));
        real();
        Path ws = Files.createDirectories(dir.resolve("ws"));
        CommandRunner.Result r = run(s, "cat " + home + "/.m2/repository/org/lib.pom " + home + "/secret.txt " + home
                + "/.m2/settings.xml; touch " + home + "/.m2/repository/new", ws, true);
        assertTrue(r.output().contains("<project/>"), r.output());
        assertFalse(r.output().contains("SECRET"), r.output());
        assertFalse(Files.exists(home.resolve(".m2/repository/new")), r.output());
    }

    @Test
    void aHomeReachedThroughALinkIsHiddenWhereItReallyIs() throws Exception {
        real();
        Path data = outsideTmp("linked-home");
        Files.writeString(data.resolve("secret.txt"), "SECRET\n");
        Path links = Files.createDirectories(dir.resolve("homes"));
        Path home = Files.createSymbolicLink(links.resolve("u"), data);
        Sandbox s = new Bubblewrap(Bubblewrap.BWRAP, List.of(home));
        Path ws = Files.createDirectories(dir.resolve("ws"));
        CommandRunner.Result r = run(s, "cat " + home + "/secret.txt " + data + "/secret.txt " + data.toRealPath() + "/secret.txt", ws, false);
        try {
            assertFalse(r.output().contains("SECRET"), r.output());
        } finally {
            Files.delete(data.resolve("secret.txt"));
        }
    }

    private static String git(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
        return out;
    }

    @Test
    void theHostsGitStillWorksInASubdirectoryWorkspaceWhileAndAfterACommandRuns() throws Exception {
        Sandbox s = real();
        Path repo = Files.createDirectories(dir.resolve("repo"));
        git(repo, "init", "-q");
        Path sub = Files.createDirectories(repo.resolve("sub"));
        Files.writeString(sub.resolve("a.txt"), "a\n");
        var running = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return run(s, "touch started; while [ ! -e done ]; do sleep 0.1; done; ls -a", sub, true);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        while (!Files.exists(sub.resolve("started")) && !running.isDone()) Thread.sleep(50);
        assertFalse(running.isDone(), "the command runs: " + (running.isDone() ? running.get().output() : ""));
        String during = git(sub, "status", "--porcelain", "--untracked-files=all");
        assertFalse(Files.exists(sub.resolve(".git")), "nothing is put in its place while it runs");
        Files.writeString(sub.resolve("done"), "");
        CommandRunner.Result r = running.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(during.contains("a.txt"), "the host's git finds the repository above: " + during);
        assertFalse(r.output().contains(".git") || r.output().contains(".agent"), r.output());
        assertTrue(git(sub, "status", "--porcelain", "--untracked-files=all").contains("a.txt"));
        Files.createDirectories(sub.resolve(".agent")); // the user's own .agent/ can be made afterwards
    }

    @Test
    void theSandboxesOwnFailureIsToldApartFromTheCommands() throws Exception {
        Sandbox s = real();
        Path ws = Files.createDirectories(dir.resolve("gone"));
        SandboxLaunch launch = s.prepare("true", ws, new SandboxPolicy(List.of(ws), false, false));
        Files.delete(ws); // the bind source vanished: bwrap itself fails
        Process p = launch.start(new ProcessBuilder(launch.argv()));
        p.getInputStream().readAllBytes();
        p.waitFor();
        assertNotNull(launch.failure(), "bwrap's own error");
        launch.close();
        Path ok = Files.createDirectories(dir.resolve("ok"));
        assertNull(run(s, "echo 'bwrap: fake'; exit 1", ok, false).sandboxFailure(), "a command cannot fake it");
    }
}
