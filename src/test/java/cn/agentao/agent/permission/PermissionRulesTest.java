package cn.agentao.agent.permission;

import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PermissionRulesTest {

    @Test
    void parsesTheDocumentedFormat() throws IOException {
        PermissionRules rules = PermissionRules.parse(Json.mapper().readTree("""
                {"allow":[{"tool":"run_shell_command","command":"npm test*"}],
                 "deny":[{"tool":"web_fetch","url":"*.example.com*"}],
                 "ask":[{"path":"~/.ssh/*"}]}"""));
        assertEquals(List.of(new PermissionRules.Rule("run_shell_command", "npm test*", null, null)), rules.allow());
        assertEquals(List.of(new PermissionRules.Rule("web_fetch", null, null, "*.example.com*")), rules.deny());
        assertEquals(List.of(new PermissionRules.Rule(null, null, "~/.ssh/*", null)), rules.ask());
    }

    @Test
    void rejectsMalformedRulesWithAMessage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PermissionRules.parse(Json.mapper().readTree("{\"allow\":[{\"tool\":\"x\",\"cmd\":\"y\"}]}")));
        assertTrue(e.getMessage().contains("cmd"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> PermissionRules.parse(Json.mapper().readTree("{\"allow\":{}}")));
        assertThrows(IllegalArgumentException.class,
                () -> PermissionRules.parse(Json.mapper().readTree("{\"permit\":[]}")));
        assertThrows(IllegalArgumentException.class,
                () -> PermissionRules.parse(Json.mapper().readTree("{\"deny\":[{\"command\":\"a\",\"url\":\"b\"}]}")));
    }

    @Test
    void loadsAFileAndToleratesAMissingOne(@TempDir Path dir) throws IOException {
        assertSame(PermissionRules.EMPTY, PermissionRules.load(dir.resolve("absent.json")));
        Path file = dir.resolve("permissions.json");
        Files.writeString(file, "{\"deny\":[{\"tool\":\"web_fetch\"}]}");
        assertEquals(1, PermissionRules.load(file).deny().size());
        Files.writeString(file, "{not json");
        IOException e = assertThrows(IOException.class, () -> PermissionRules.load(file));
        assertTrue(e.getMessage().contains(file.toString()));
    }

    @Test
    void userRulesFileFollowsXdg() {
        Path home = Path.of("/home/u");
        assertEquals(Path.of("/cfg/agent/permissions.json"),
                PermissionRules.userRulesFile(Map.of("XDG_CONFIG_HOME", "/cfg"), home));
        assertEquals(Path.of("/home/u/.config/agent/permissions.json"), PermissionRules.userRulesFile(Map.of(), home));
        assertEquals(Path.of("/home/u/.config/agent/permissions.json"),
                PermissionRules.userRulesFile(Map.of("XDG_CONFIG_HOME", "relative"), home));
    }
}
