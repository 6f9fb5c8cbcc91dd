package cn.agentao.agent.permission;

import cn.agentao.agent.permission.PermissionMemory.Answer;
import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PermissionMemoryTest {
    private static final Path CWD = Path.of("/w");

    private static PermissionRequest cmd(String line) {
        return new PermissionRequest.RunCommand("run_shell_command", line, CWD);
    }

    @Test
    void onlyAlwaysOptionsAreRemembered() {
        PermissionMemory m = new PermissionMemory();
        assertFalse(m.record(cmd("npm test"), "allow_once"));
        assertFalse(m.record(cmd("npm test"), "reject_once"));
        assertEquals(Optional.empty(), m.recall(cmd("npm test")));
        assertTrue(m.record(cmd("npm test"), "allow_always"));
        assertEquals(Optional.of(Answer.ALLOW), m.recall(cmd("npm run build")));
    }

    @Test
    void computedProgramNamesAreNeverRemembered() {
        PermissionMemory m = new PermissionMemory();
        assertFalse(m.canRemember(cmd("$EDITOR x")));
        assertFalse(m.remember(cmd("$(which npm) test"), Answer.ALLOW));
    }

    @Test
    void roundTripsThroughJson() throws Exception {
        PermissionMemory m = new PermissionMemory();
        m.record(cmd("git commit -m x && npm test"), "allow_always");
        m.record(new PermissionRequest.FetchUrl("web_fetch", "https://Example.com/a"), "reject_always");
        m.record(new PermissionRequest.WritePath("write_file", Path.of("/w/a")), "allow_always");
        String json = Json.mapper().writeValueAsString(m.toJson());
        PermissionMemory restored = PermissionMemory.fromJson(Json.mapper().readTree(json));
        assertEquals(m.snapshot(), restored.snapshot());
        assertEquals(Optional.of(Answer.REJECT),
                restored.recall(new PermissionRequest.FetchUrl("web_fetch", "http://example.com/other")));
        assertEquals(Optional.of(Answer.ALLOW), restored.recall(cmd("git log")));
        assertEquals(Optional.of(Answer.ALLOW), restored.recall(new PermissionRequest.WritePath("write_file", Path.of("/w/b"))));
        assertTrue(json.contains("\"program\":\"npm\""), json);
    }

    @Test
    void fromJsonSkipsGarbage() throws Exception {
        PermissionMemory m = PermissionMemory.fromJson(Json.mapper().readTree(
                "{\"allow\":[{\"tool\":\"\"},{\"x\":1},{\"tool\":\"write_file\"}],\"reject\":\"no\"}"));
        assertEquals(1, m.snapshot().size());
        assertEquals(0, PermissionMemory.fromJson(null).snapshot().size());
    }

    @Test
    void describesWhatAnAlwaysAnswerCovers() {
        PermissionMemory m = new PermissionMemory();
        assertEquals("run_shell_command npm, curl", m.describeScope(cmd("npm test && curl x")));
        assertEquals("run_shell_command npm", m.describeScope(cmd("cd web && npm test | grep FAIL")));
        assertEquals("run_shell_command ls", m.describeScope(cmd("ls")));
        assertEquals("web_fetch example.com", m.describeScope(new PermissionRequest.FetchUrl("web_fetch", "https://example.com/")));
    }
}
