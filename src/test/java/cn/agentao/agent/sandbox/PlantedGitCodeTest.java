package cn.agentao.agent.sandbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The before/after look at a workspace's git directories, with the command played by the test: what git would run
 * that is new is disarmed, the rest is left as it was.
 */
class PlantedGitCodeTest {
    @TempDir
    Path ws;

    static final String DEFAULT = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n";

    private Path repo(String dir, String config) throws Exception {
        Path git = Files.createDirectories(ws.resolve(dir).resolve(".git"));
        Files.createDirectories(git.resolve("objects"));
        Files.createDirectories(git.resolve("refs"));
        Files.createDirectories(git.resolve("hooks"));
        Files.writeString(git.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.writeString(git.resolve("config"), config);
        Files.writeString(git.resolve("hooks/pre-commit.sample"), "#!/bin/sh\n");
        return git;
    }

    private static void executable(Path p, String text) throws Exception {
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void keysThatRunProgramsAreRemovedInEverySpellingAndTheRestIsKept() throws Exception {
        Path git = repo("lib", DEFAULT + "[user]\n\tname = me\n");
        PlantedGitCode check = PlantedGitCode.before(List.of(ws), ws);
        Files.writeString(git.resolve("config"), DEFAULT + "[user]\n\tname = me\n"
                + "[core] fsmonitor = touch /tmp/x\n"
                + "[alias]\n\tst = \"!touch \\\n /tmp/y\"\n"
                + "[Filter \"lfs\"]\n\tclean = evil %f\n\tRequired = true\n"
                + "[includeIf \"gitdir:/\"]\n\tpath = ../evil.cfg\n"
                + "[remote \"origin\"]\n\turl = https://example.com/x.git\n\tuploadpack = evil\n"
                + "[CORE]\n\tHooksPath = h ; comment\n\tpager\n");
        List<String> done = check.after();
        String cfg = Files.readString(git.resolve("config"));
        for (String gone : List.of("fsmonitor", "touch", "/tmp/y", "evil", "HooksPath", "pager")) {
            assertFalse(cfg.contains(gone), gone + " left in:\n" + cfg + "\n" + done);
        }
        for (String kept : List.of("name = me", "Required = true", "url = https://example.com/x.git", "[core]", "repositoryformatversion")) {
            assertTrue(cfg.contains(kept), kept + " lost:\n" + cfg);
        }
        assertEquals(7, done.size(), done.toString());
        assertTrue(done.stream().allMatch(d -> d.startsWith("lib/.git/config: ")), done.toString());
        assertEquals(List.of(), check.after(), "nothing twice");
    }

    @Test
    void keysThatWereThereBeforeStay() throws Exception {
        String config = DEFAULT + "[core]\n\tpager = less -R\n[alias]\n\tlg = log --oneline\n";
        Path git = repo("lib", config);
        PlantedGitCode check = PlantedGitCode.before(List.of(ws), ws);
        Files.writeString(git.resolve("config"), config + "[branch \"main\"]\n\tremote = origin\n");
        assertEquals(List.of(), check.after());
        assertTrue(Files.readString(git.resolve("config")).contains("pager = less -R"));
    }

    @Test
    void newAndChangedHooksAreRenamedAndLoseTheirExecuteBits() throws Exception {
        Path git = repo("lib", DEFAULT);
        executable(git.resolve("hooks/pre-push"), "#!/bin/sh\nmake check\n");
        executable(git.resolve("hooks/post-merge"), "#!/bin/sh\nnpm ci\n");
        PlantedGitCode check = PlantedGitCode.before(List.of(ws), ws);
        executable(git.resolve("hooks/pre-commit"), "#!/bin/sh\ntouch /tmp/x\n");
        executable(git.resolve("hooks/pre-push"), "#!/bin/sh\ntouch /tmp/x\n");
        List<String> done = check.after();
        assertEquals(2, done.size(), done.toString());
        assertFalse(Files.exists(git.resolve("hooks/pre-commit")));
        assertFalse(Files.exists(git.resolve("hooks/pre-push")));
        assertFalse(Files.isExecutable(git.resolve("hooks/pre-commit" + PlantedGitCode.DISABLED)));
        assertTrue(Files.isExecutable(git.resolve("hooks/post-merge")), "the user's untouched hook stays");
        assertTrue(Files.exists(git.resolve("hooks/pre-commit.sample")));
    }

    @Test
    void aHookDirectoryLinkedOutsideIsSetAsideAndNothingOutsideIsRenamed(@TempDir Path elsewhere) throws Exception {
        Path git = repo("lib", DEFAULT);
        executable(elsewhere.resolve("pre-commit"), "#!/bin/sh\n");
        PlantedGitCode check = PlantedGitCode.before(List.of(ws), ws);
        Path hooks = git.resolve("hooks");
        Files.delete(hooks.resolve("pre-commit.sample"));
        Files.delete(hooks);
        Files.createSymbolicLink(hooks, elsewhere);
        List<String> done = check.after();
        assertEquals(1, done.size(), done.toString());
        assertFalse(Files.exists(hooks, java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertTrue(Files.isSymbolicLink(git.resolve("hooks" + PlantedGitCode.DISABLED)));
        assertTrue(Files.isExecutable(elsewhere.resolve("pre-commit")), "a file outside the workspace is never touched");
    }

    @Test
    void aRepositoryTheCommandCreatedIsCheckedWhole() throws Exception {
        PlantedGitCode check = PlantedGitCode.before(List.of(ws), ws);
        Path git = repo("a/b", DEFAULT + "[core]\n\tsshCommand = evil\n");
        executable(git.resolve("hooks/post-checkout"), "#!/bin/sh\nevil\n");
        List<String> done = check.after();
        assertEquals(2, done.size(), done.toString());
        assertEquals(DEFAULT + "[core]\n", Files.readString(git.resolve("config")));
    }

    @Test
    void theRootsOwnGitDirectoryIsNotTouched() throws Exception {
        Path top = Files.createDirectories(ws.resolve(".git/hooks"));
        Files.writeString(ws.resolve(".git/HEAD"), "ref: refs/heads/main\n");
        Files.writeString(ws.resolve(".git/config"), DEFAULT);
        PlantedGitCode check = PlantedGitCode.before(List.of(ws), ws);
        executable(top.resolve("pre-commit"), "#!/bin/sh\n"); // the user's, while a command ran: read-only to commands
        Files.writeString(ws.resolve(".git/config"), DEFAULT + "[core]\n\teditor = vim\n");
        assertEquals(List.of(), check.after());
        assertTrue(Files.isExecutable(top.resolve("pre-commit")));
    }
}
