package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.*;

/** Real MCP servers from npm, given by the client in session/new, used by the model through the real agent. */
class McpIT {
    @TempDir
    Path dir;
    Path ws;
    FakeModelServer model;
    AgentProcess agent;
    final List<JsonNode> questions = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        McpTestServers.requireNode();
        model = FakeModelServer.start();
        ws = Files.createDirectories(dir.resolve("ws"));
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        agent = AgentProcess.start(env, "--acp");
        agent.onClientRequest("session/request_permission", p -> {
            questions.add(p);
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
            return r;
        });
        JsonNode init = agent.call("initialize", Json.object().put("protocolVersion", 1)).path("result");
        assertTrue(init.path("agentCapabilities").path("mcpCapabilities").path("http").asBoolean());
        assertTrue(init.path("agentCapabilities").path("mcpCapabilities").path("sse").asBoolean());
    }

    @AfterEach
    void stop() {
        try {
            assertEquals(List.of(), agent.violations(), "server output never reaches stdout");
        } finally {
            agent.close();
            model.close();
        }
    }

    ObjectNode stdioServer(String name, String command, String... args) {
        ObjectNode s = Json.object().put("name", name).put("command", command);
        ArrayNode a = s.putArray("args");
        for (String x : args) a.add(x);
        s.putArray("env");
        return s;
    }

    String newSession(ObjectNode... servers) throws Exception {
        ObjectNode p = Json.object().put("cwd", ws.toString());
        ArrayNode list = p.putArray("mcpServers");
        for (ObjectNode s : servers) list.add(s);
        JsonNode r = agent.call("session/new", p, Duration.ofSeconds(30));
        assertTrue(r.has("result"), r.toString());
        return r.path("result").path("sessionId").asText();
    }

    ObjectNode prompt(String id, String text) {
        ObjectNode p = Json.object().put("sessionId", id);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    @Test
    void aToolCallRunsEndToEndWithThePermissionPromptAndPromptsBecomeCommands() throws Exception {
        String node = McpTestServers.requireNode();
        String id = newSession(stdioServer("everything", node, McpTestServers.EVERYTHING.toString(), "stdio"));
        JsonNode commands = agent.await(m -> "available_commands_update".equals(m.path("params").path("update").path("sessionUpdate").asText())
                && m.path("params").path("update").toString().contains("mcp.everything."), Duration.ofSeconds(20));
        assertNotNull(commands);
        model.enqueue(Script.reply().toolCall("m1", "mcp__everything__echo", "{\"message\":\"hello mcp\"}"), Script.textReply("done"));
        JsonNode r = agent.call("session/prompt", prompt(id, "echo something"), Duration.ofSeconds(30));
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        String offered = model.requests().get(0).tools().toString();
        assertTrue(offered.contains("mcp__everything__echo"), offered);
        assertEquals(1, questions.size(), "a server from the client is untrusted: asked first");
        assertEquals("m1", questions.get(0).path("toolCall").path("toolCallId").asText());
        String sent = model.lastRequest().messages().toString();
        assertTrue(sent.contains("hello mcp"), sent);
        List<JsonNode> done = agent.updates(id).stream().filter(u -> "tool_call_update".equals(u.path("sessionUpdate").asText())
                && "completed".equals(u.path("status").asText())).toList();
        assertEquals(1, done.size());
        assertTrue(done.get(0).path("content").toString().contains("hello mcp"));
    }

    @Test
    void aServerThatFailsIsNamedAndTheSessionCarriesOn() throws Exception {
        String node = McpTestServers.requireNode();
        String id = newSession(stdioServer("broken", dir.resolve("no-such-program").toString()),
                stdioServer("everything", node, McpTestServers.EVERYTHING.toString(), "stdio"));
        JsonNode notice = agent.await(m -> m.path("params").path("update").path("content").path("text").asText().contains("\"broken\""),
                Duration.ofSeconds(20));
        assertTrue(notice.path("params").path("update").path("content").path("text").asText().contains("unavailable"), notice.toString());
        model.enqueue(Script.textReply("still fine"));
        assertEquals("end_turn", agent.call("session/prompt", prompt(id, "hi")).path("result").path("stopReason").asText());
    }

    @Test
    void streamableHttpServersWork() throws Exception {
        try (McpTestServers.RunningHttpServer server = McpTestServers.startEverythingHttp("streamableHttp")) {
            ObjectNode http = Json.object().put("type", "http").put("name", "remote").put("url", server.url("/mcp"));
            http.putArray("headers");
            String id = newSession(http);
            model.enqueue(Script.reply().toolCall("h1", "mcp__remote__echo", "{\"message\":\"over http\"}"), Script.textReply("done"));
            agent.call("session/prompt", prompt(id, "echo"), Duration.ofSeconds(30));
            assertTrue(model.lastRequest().messages().toString().contains("over http"));
        }
    }

    @Test
    void noServerProcessOutlivesTheAgent() throws Exception {
        String node = McpTestServers.requireNode();
        newSession(stdioServer("everything", node, McpTestServers.EVERYTHING.toString(), "stdio"),
                stdioServer("files", node, McpTestServers.FILESYSTEM.toString(), ws.toString()));
        List<ProcessHandle> children = agent.process().descendants().toList();
        assertTrue(children.size() >= 2, "servers running: " + children);
        agent.closeStdin();
        assertEquals(0, agent.awaitExit(Duration.ofSeconds(30)));
        awaitGone(children);
    }

    /** The children end as soon as the machine lets them; none may still run after a generous while. */
    private static void awaitGone(List<ProcessHandle> children) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (children.stream().anyMatch(ChildProcesses::isRunning) && System.nanoTime() < deadline) Thread.sleep(20);
        for (ProcessHandle h : children) assertFalse(ChildProcesses.isRunning(h), "left running: " + h.info().commandLine().orElse("?"));
    }

    @Test
    void noServerProcessOutlivesSigterm() throws Exception {
        String node = McpTestServers.requireNode();
        newSession(stdioServer("everything", node, McpTestServers.EVERYTHING.toString(), "stdio"));
        List<ProcessHandle> children = agent.process().descendants().toList();
        assertFalse(children.isEmpty());
        agent.process().destroy();
        assertEquals(0, agent.awaitExit(Duration.ofSeconds(30)));
        awaitGone(children);
    }
}
