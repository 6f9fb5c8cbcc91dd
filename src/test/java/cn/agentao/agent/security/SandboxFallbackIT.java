package cn.agentao.agent.security;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Without a sandbox ({@code AGENT_SANDBOX=none}, as on a machine without bubblewrap or user namespaces): one
 * plain notice per session saying so and how to enable it, and the parser-based engine asks before every
 * command that is not provably read-only (read-only and plan refuse it).
 */
class SandboxFallbackIT {
    @TempDir
    static Path dir;
    static SecurityHarness h;

    @BeforeAll
    static void start() throws Exception {
        h = SecurityHarness.start(dir, Map.of("AGENT_SANDBOX", "none"));
    }

    @AfterAll
    static void stop() {
        if (h != null) h.close();
    }

    static String shell(String command) {
        return Json.object().put("command", command).toString();
    }

    static long notices(List<JsonNode> updates) {
        return updates.stream().filter(u -> "agent_message_chunk".equals(u.path("sessionUpdate").asText()))
                .filter(u -> u.path("content").path("text").asText().contains("without an OS sandbox")).count();
    }

    @Test
    void theNoticeComesOncePerSessionAndSaysHowToEnableIt() throws Exception {
        Path ws = h.newWorkspace();
        String id = h.newSession(ws);
        h.runToolIn(id, "run_shell_command", shell("ls"));
        h.runToolIn(id, "run_shell_command", shell("pwd"));
        List<JsonNode> updates = h.agent.updates(id);
        assertEquals(1, notices(updates), "once per session");
        String text = updates.stream().map(u -> u.path("content").path("text").asText())
                .filter(t -> t.contains("without an OS sandbox")).findFirst().orElseThrow();
        assertTrue(text.contains("bubblewrap") && text.contains("user namespaces") && text.contains("AGENT_SANDBOX"), text);
        assertTrue(h.agent.stderr().contains("without an OS sandbox"), "logged too");
        String other = h.newSession(h.newWorkspace());
        h.runToolIn(other, "run_shell_command", shell("ls"));
        assertEquals(1, notices(h.agent.updates(other)), "and again in the next session");
    }

    @Test
    void workspaceWriteAsksAndARejectedCommandDoesNotRun() throws Exception {
        Path ws = h.newWorkspace();
        Path marker = ws.resolve("marker");
        h.answer("reject_once");
        SecurityHarness.Outcome o = h.runTool(ws, "workspace-write", "run_shell_command", shell("touch " + marker));
        assertEquals(1, o.questions().size());
        assertFalse(Files.exists(marker));
    }

    @Test
    void readOnlyRefusesWhatIsNotProvablyReadOnly() throws Exception {
        Path ws = h.newWorkspace();
        Path marker = ws.resolve("marker");
        h.answer("allow_once");
        for (String mode : List.of("read-only", "plan")) {
            SecurityHarness.Outcome o = h.runTool(ws, mode, "run_shell_command", shell("touch " + marker));
            assertFalse(o.asked());
            assertFalse(Files.exists(marker), o.toolResult());
            assertTrue(o.toolResult().contains("denied"), o.toolResult());
        }
    }
}
