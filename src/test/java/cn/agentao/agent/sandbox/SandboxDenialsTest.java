package cn.agentao.agent.sandbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class SandboxDenialsTest {
    @TempDir
    Path dir;

    @Test
    void theOperatingSystemsWordsForALackOfAccessCountOnlyForAFailure() {
        assertTrue(SandboxDenials.looksDenied(1, "touch: cannot touch '/etc/x': Read-only file system", p -> false));
        assertTrue(SandboxDenials.looksDenied(6, "curl: (6) Could not resolve host: example.com", p -> false));
        assertTrue(SandboxDenials.looksDenied(7, "curl: (7) Failed to connect to 127.0.0.1 port 9: Couldn't connect to server", p -> false));
        assertFalse(SandboxDenials.looksDenied(0, "Permission denied", p -> false), "it succeeded");
        assertFalse(SandboxDenials.looksDenied(null, "Permission denied", p -> false), "killed");
        assertFalse(SandboxDenials.looksDenied(1, "FAILED: 3 tests", p -> false));
        assertTrue(SandboxDenials.looksDenied(128, "fatal: cannot stat '/w/.git/description': Not a directory", p -> false));
        assertFalse(SandboxDenials.looksDenied(1, "cd: notes.txt: Not a directory", p -> false));
    }

    @Test
    void aMissingFileCountsOnlyInsideAHiddenDirectoryThatHasIt() throws Exception {
        Path hidden = Files.createDirectories(dir.resolve("home"));
        Files.createDirectories(hidden.resolve("other"));
        assertTrue(SandboxDenials.looksDenied(1, "bash: " + hidden.resolve("other/x") + ": No such file or directory", p -> p.startsWith(hidden)));
        assertFalse(SandboxDenials.looksDenied(1, "cat: " + hidden.resolve("nope/x") + ": No such file or directory", p -> p.startsWith(hidden)));
        assertFalse(SandboxDenials.looksDenied(1, "cat: /usr/share/x: No such file or directory", p -> p.startsWith(hidden)));
    }
}
