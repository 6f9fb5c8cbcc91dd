package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.testing.TestCertificates;
import cn.agentao.agent.testing.SquidProxy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * MCP servers over http and sse behind a real proxy (squid, which keeps client connections as the MCP transports
 * expect): the agent reaches server-everything, on this machine's own name (not a loopback name, so it is proxied),
 * and the proxy's access log shows the requests.
 */
class McpProxyIT {
    static final String HOST = TestCertificates.localName();

    @TempDir
    Path dir;
    FakeModelServer model;
    SquidProxy proxy;
    AgentProcess agent;

    @AfterEach
    void stop() throws Exception {
        try {
            if (agent != null) assertEquals(List.of(), agent.violations());
        } finally {
            if (agent != null) agent.close();
            if (model != null) model.close();
            if (proxy != null) proxy.close();
        }
    }

    @ParameterizedTest(name = "{0} server at {1}")
    @CsvSource({"streamableHttp, http, /mcp, POST http://HOST:PORT/mcp", "sse, sse, /sse, POST http://HOST:PORT/message"})
    void serversOverHttpAreReachedThroughTheProxy(String mode, String type, String path, String logged) throws Exception {
        McpTestServers.requireNode();
        proxy = SquidProxy.start();
        model = FakeModelServer.start();
        try (McpTestServers.RunningHttpServer server = McpTestServers.startEverythingHttp(mode)) {
            String url = "http://" + HOST + ":" + server.port() + path;
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
            env.put("HTTP_PROXY", proxy.url());
            agent = AgentProcess.start(env, "--acp", "--log-level", "debug");
            agent.onClientRequest("session/request_permission", p -> {
                ObjectNode r = Json.object();
                r.putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
                return r;
            });
            assertTrue(agent.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
            ObjectNode p = Json.object().put("cwd", Files.createDirectories(dir.resolve("ws")).toString());
            ObjectNode remote = p.putArray("mcpServers").addObject().put("type", type).put("name", "remote").put("url", url);
            remote.putArray("headers");
            JsonNode created = agent.call("session/new", p, Duration.ofSeconds(30));
            String id = created.path("result").path("sessionId").asText();
            assertFalse(id.isEmpty(), created.toString());
            // ready (its prompts offered as commands) before the model is asked: a slow start joins after session/new
            agent.await(m -> "available_commands_update".equals(m.path("params").path("update").path("sessionUpdate").asText())
                    && m.path("params").path("update").toString().contains("mcp.remote."), Duration.ofSeconds(60));

            model.enqueue(Script.reply().toolCall("h1", "mcp__remote__echo", "{\"message\":\"through the proxy\"}"),
                    Script.textReply("done"));
            ObjectNode prompt = Json.object().put("sessionId", id);
            prompt.putArray("prompt").addObject().put("type", "text").put("text", "echo");
            JsonNode r = agent.call("session/prompt", prompt, Duration.ofSeconds(60));
            assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
            String sent = model.lastRequest().messages().toString();
            assertTrue(sent.contains("Echo: through the proxy"), sent + "\nagent log:\n" + agent.stderr() + "\nproxy log:\n" + proxy.log());
            String request = logged.replace("HOST", HOST).replace("PORT", Integer.toString(server.port()));
            proxy.awaitRequest(line -> line.startsWith(request), Duration.ofSeconds(10));
        }
    }
}
