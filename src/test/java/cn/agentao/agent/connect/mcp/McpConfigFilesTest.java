package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.core.tool.McpServerConfig.NameValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class McpConfigFilesTest {
    @TempDir
    Path tmp;

    private Map<String, String> env() {
        return Map.of("XDG_CONFIG_HOME", tmp.resolve("xdg").toString(), "API_TOKEN", "tok-123");
    }

    private void write(Path file, String json) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, json);
    }

    @Test
    void readsEveryKindOfServer() throws IOException {
        Path project = tmp.resolve("project");
        write(McpConfigFiles.projectFile(project), """
                {"mcpServers": {
                  "files": {"command": "npx", "args": ["-y", "server-filesystem", "."], "env": {"DEBUG": "1"}, "trusted": true},
                  "web": {"type": "http", "url": "https://mcp.example.test/mcp", "headers": {"Authorization": "Bearer ${API_TOKEN}"}},
                  "implicit": {"url": "http://127.0.0.1:9/mcp"},
                  "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}
                }}""");
        McpConfigFiles.Result r = McpConfigFiles.serversFor(ProjectMcpFile.read(project).orElse(null), env(), List.of());
        assertEquals(List.of(), r.warnings());
        assertEquals(List.of("files", "web", "implicit", "old"), r.servers().stream().map(McpServerDefinition::name).toList());
        McpServerDefinition files = r.servers().get(0);
        assertEquals(new McpServerConfig("stdio", "files", "npx", List.of("-y", "server-filesystem", "."),
                List.of(new NameValue("DEBUG", "1")), null, null), files.config());
        assertTrue(files.trusted());
        assertEquals(McpServerDefinition.Origin.PROJECT_CONFIG, files.origin());
        McpServerDefinition web = r.servers().get(1);
        assertEquals("http", web.config().type());
        assertEquals(List.of(new NameValue("Authorization", "Bearer tok-123")), web.config().headers());
        assertFalse(web.trusted());
        assertEquals("http", r.servers().get(2).config().type());
        assertEquals("sse", r.servers().get(3).config().type());
    }

    @Test
    void theSessionsListWinsOverProjectWhichWinsOverUser() throws IOException {
        Path project = tmp.resolve("project");
        write(McpConfigFiles.userFile(env()), """
                {"mcpServers": {"a": {"command": "user-a", "trusted": true}, "b": {"command": "user-b"}, "c": {"command": "user-c"}}}""");
        write(McpConfigFiles.projectFile(project), """
                {"mcpServers": {"b": {"command": "project-b"}, "c": {"command": "project-c", "trusted": true}}}""");
        McpServerConfig fromClient = new McpServerConfig("stdio", "c", "client-c", List.of(), List.of(), null, null);
        McpConfigFiles.Result r = McpConfigFiles.serversFor(ProjectMcpFile.read(project).orElse(null), env(), List.of(fromClient));
        assertEquals(List.of("user-a", "project-b", "client-c"), r.servers().stream().map(d -> d.config().command()).toList());
        assertEquals(List.of(true, false, false), r.servers().stream().map(McpServerDefinition::trusted).toList());
        assertEquals(List.of(McpServerDefinition.Origin.USER_CONFIG, McpServerDefinition.Origin.PROJECT_CONFIG,
                McpServerDefinition.Origin.CLIENT), r.servers().stream().map(McpServerDefinition::origin).toList());
    }

    @Test
    void brokenEntriesAreSkippedWithAWarning() throws IOException {
        Path project = tmp.resolve("project");
        write(McpConfigFiles.projectFile(project), """
                {"mcpServers": {
                  "no-command": {"args": []},
                  "bad-url": {"type": "http", "url": "ftp://x"},
                  "bad-type": {"type": "carrier-pigeon", "command": "x"},
                  "bad-env": {"command": "x", "env": {"A": 1}},
                  "unset": {"command": "x", "args": ["${NOT_SET_ANYWHERE}", "${ALSO_UNSET:-fallback}"]},
                  "ok": {"command": "x"}
                }}""");
        McpConfigFiles.Result r = McpConfigFiles.serversFor(ProjectMcpFile.read(project).orElse(null), env(), List.of());
        assertEquals(List.of("unset", "ok"), r.servers().stream().map(McpServerDefinition::name).toList());
        assertEquals(List.of("", "fallback"), r.servers().get(0).config().args());
        assertEquals(5, r.warnings().size(), r.warnings().toString());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("\"no-command\"") && w.contains("\"command\" is missing")), r.warnings().toString());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("NOT_SET_ANYWHERE is not set")), r.warnings().toString());
    }

    @Test
    void invalidJsonIsAWarningNotAFailure() throws IOException {
        Path project = tmp.resolve("project");
        write(McpConfigFiles.projectFile(project), "{ not json");
        McpConfigFiles.Result r = McpConfigFiles.serversFor(ProjectMcpFile.read(project).orElse(null), env(), List.of());
        assertEquals(List.of(), r.servers());
        assertEquals(1, r.warnings().size());
        assertTrue(r.warnings().get(0).contains("is not valid JSON"), r.warnings().get(0));
    }

    @Test
    void noFilesNoServers() {
        McpConfigFiles.Result r = McpConfigFiles.serversFor(ProjectMcpFile.read(tmp.resolve("nowhere")).orElse(null), env(), null);
        assertEquals(List.of(), r.servers());
        assertEquals(List.of(), r.warnings());
    }
}
