package cn.agentao.agent.sandbox;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The generated macOS profile (it cannot run here): what it allows, what it denies, and that paths stay parameters. */
class SeatbeltTest {
    private static final Path HOME = Path.of("/Users/me");
    private static final Path WS = Path.of("/Users/me/src/proj");
    private static final Path EXTRA = Path.of("/opt/shared \"quoted\"");
    private final Seatbelt seatbelt = new Seatbelt(HOME, Path.of("/private/tmp/agent-sandbox-1"));

    @Test
    void workspaceWriteAllowsWritesOnlyInTheRootsMinusTheProtectedNames() {
        String p = Seatbelt.profile(new SandboxPolicy(List.of(WS, EXTRA), true, false));
        assertTrue(p.startsWith("(version 1)\n(deny default)\n"), p);
        assertTrue(p.contains("(allow file-read*)\n(deny file-read* (subpath (param \"HOME_DIR\")))\n"
                + "(allow file-read* (subpath (param \"ROOT_0\")))\n(allow file-read* (subpath (param \"ROOT_1\")))\n"), p);
        assertTrue(p.contains("(allow file-write* (require-all (subpath (param \"ROOT_0\")) (require-not (subpath (param \"ROOT_0_PROTECTED_0\")))"), p);
        for (int j = 0; j < SandboxPolicy.PROTECTED_NAMES.size(); j++) {
            assertTrue(p.contains("(require-not (subpath (param \"ROOT_1_PROTECTED_" + j + "\")))"), p);
        }
        assertTrue(p.contains("(require-not (regex #\"/\\.env[^/]*$\"))))"), "every .env* file stays read-only: " + p);
        assertFalse(p.contains("network"), "no network rule at all: denied by default");
        assertFalse(p.contains(WS.toString()) || p.contains("quoted"), "paths are parameters, never spliced into the text");
    }

    @Test
    void readOnlyWritesNothingButTheTemporaryDirectory() {
        String p = Seatbelt.profile(new SandboxPolicy(List.of(WS), false, false));
        assertEquals(1, p.lines().filter(l -> l.contains("file-write*")).count(), p);
        assertTrue(p.contains("(allow file-write* (literal \"/dev/null\") (literal \"/dev/tty\") (subpath (param \"TMP_DIR\")))"), p);
        assertFalse(p.contains("ROOT_0_PROTECTED"), p);
    }

    @Test
    void theArgvPassesEveryPathAsADefinition() {
        List<String> argv = seatbelt.argv("make test", new SandboxPolicy(List.of(WS), true, false));
        assertEquals("/usr/bin/sandbox-exec", argv.get(0));
        assertEquals("-p", argv.get(1));
        assertTrue(argv.contains("-DHOME_DIR=/Users/me"));
        assertTrue(argv.contains("-DROOT_0=/Users/me/src/proj"));
        assertTrue(argv.contains("-DROOT_0_PROTECTED_0=/Users/me/src/proj/.git"));
        assertTrue(argv.contains("-DTMP_DIR=/private/tmp/agent-sandbox-1"));
        assertEquals(List.of("--", "/usr/bin/env", "TMPDIR=/private/tmp/agent-sandbox-1", "/bin/bash", "-c", "make test"),
                argv.subList(argv.size() - 6, argv.size()));
    }
}
