package cn.agentao.agent.security;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The harness itself: a case runs, the tool result reaches the model, and the key never does. */
class HarnessSmokeIT {
    @TempDir
    Path dir;

    @Test
    void aReadInsideTheWorkspaceRunsAndTheKeyStaysHome() throws Exception {
        try (SecurityHarness h = SecurityHarness.start(dir, Map.of())) {
            Path ws = h.newWorkspace();
            Files.writeString(ws.resolve("a.txt"), "hello from the workspace\n");
            SecurityHarness.Outcome o = h.runTool(ws, "read-only", "read_file", "{\"path\":\"a.txt\"}");
            assertEquals("end_turn", o.stopReason());
            assertTrue(o.toolResult().contains("hello from the workspace"), o.toolResult());
            assertFalse(o.asked());
            assertFalse(h.everythingSentToModel().contains(SecurityHarness.SECRET_KEY));
            assertFalse(h.everythingInStore().contains(SecurityHarness.SECRET_KEY));
        }
    }
}
