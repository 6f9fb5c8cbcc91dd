package cn.agentao.agent.tools.web;

import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * web_search through the real agent over ACP, answered by a fake SearXNG on loopback, or by the provider's own search
 * (the scripted model server answering the Responses API and Anthropic's web search server tool).
 */
class WebSearchIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    HttpServer searxng;
    AgentProcess agent;
    String id;
    final List<String> queries = new CopyOnWriteArrayList<>();
    final List<JsonNode> questions = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        searxng = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        searxng.createContext("/search", ex -> {
            queries.add(ex.getRequestURI().getQuery());
            ObjectNode root = Json.object();
            root.putArray("results").addObject().put("title", "Records in Java").put("url", "https://docs.example/records")
                    .put("content", "A record is a transparent carrier for data.");
            byte[] body = root.toString().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        searxng.start();
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            assertEquals(List.of(), agent.violations());
            agent.close();
        }
        searxng.stop(0);
        model.close();
    }

    void startAgent(String configJson) throws Exception {
        startAgent(configJson, model.openAiEnvironment());
    }

    void startAgent(String configJson, Map<String, String> modelEnv) throws Exception {
        Path config = Files.createDirectories(dir.resolve("config/agent"));
        if (configJson != null) Files.writeString(config.resolve("config.json"), configJson);
        Map<String, String> env = new HashMap<>(modelEnv);
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put(NetworkGuard.ALLOW_PRIVATE_NETWORK, "1");
        agent = AgentProcess.start(env, "--acp");
        agent.onClientRequest("session/request_permission", params -> {
            questions.add(params);
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
            return r;
        });
        assertTrue(agent.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        Path ws = Files.createDirectories(dir.resolve("ws"));
        id = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.array()))
                .path("result").path("sessionId").asText();
    }

    List<String> toolsOffered() {
        return toolsOffered(model.lastRequest());
    }

    static List<String> toolsOffered(RecordedRequest request) {
        List<String> names = new ArrayList<>();
        request.tools().forEach(t -> names.add(t.has("function") ? t.path("function").path("name").asText() : t.path("name").asText()));
        return names;
    }

    /** The last tool_call_update of {@code callId} with content. */
    JsonNode lastUpdateWithContent(String callId) {
        JsonNode last = null;
        for (JsonNode u : agent.updates(id)) {
            if ("tool_call_update".equals(u.path("sessionUpdate").asText()) && callId.equals(u.path("toolCallId").asText())
                    && u.has("content")) last = u;
        }
        assertNotNull(last, agent.updates(id).toString());
        return last;
    }

    static final Script.Page PAGE = new Script.Page("Records in Java", "https://docs.example/records",
            "A record is a transparent carrier for data.");

    @Test
    void openAisOwnSearchAnswersThroughAcpAsResourceLinks() throws Exception {
        startAgent("{\"webSearch\":{\"backend\":\"provider\"}}");
        model.enqueue(Script.reply().toolCall("call_p", "web_search", "{\"query\":\"java records\"}", 3),
                Script.reply().webSearch("java records", PAGE), Script.textReply("done"));
        JsonNode r = agent.call("session/prompt", AgentProcess.prompt(id, "search for java records"), Duration.ofSeconds(60));
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());

        List<RecordedRequest> requests = model.requests();
        assertTrue(toolsOffered(requests.get(0)).contains("web_search"), toolsOffered(requests.get(0)).toString());
        RecordedRequest search = requests.get(1);
        assertEquals("/v1/responses", search.path());
        assertEquals("web_search", search.tools().get(0).path("type").asText());
        assertEquals("Bearer " + FakeModelServer.API_KEY, search.header("authorization"));
        assertEquals(1, questions.size(), "asked like a fetch in the default mode");
        JsonNode block = lastUpdateWithContent("call_p").path("content").get(0).path("content");
        assertEquals("resource_link", block.path("type").asText(), block.toString());
        assertEquals("https://docs.example/records", block.path("uri").asText());
        assertEquals("Records in Java", block.path("title").asText());
        assertEquals("A record is a transparent carrier for data.", block.path("description").asText());
        String toModel = null;
        for (JsonNode m : model.lastRequest().messages()) {
            if ("tool".equals(m.path("role").asText()) && "call_p".equals(m.path("tool_call_id").asText())) toModel = m.path("content").asText();
        }
        assertNotNull(toModel);
        assertTrue(toModel.contains("1. Records in Java\n   https://docs.example/records"), toModel);
    }

    @Test
    void anthropicsOwnSearchAnswersThroughAcpAsResourceLinks() throws Exception {
        startAgent("{\"webSearch\":{\"backend\":\"provider\"}}", model.anthropicEnvironment());
        model.enqueue(Script.reply().toolCall("toolu_p", "web_search", "{\"query\":\"java records\"}", 3),
                Script.reply().webSearch("java records", PAGE), Script.textReply("done"));
        JsonNode r = agent.call("session/prompt", AgentProcess.prompt(id, "search for java records"), Duration.ofSeconds(60));
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());

        RecordedRequest search = model.requests().get(1);
        assertEquals("/v1/messages", search.path());
        assertFalse(search.streaming());
        assertEquals("web_search_20250305", search.tools().get(0).path("type").asText());
        assertEquals(1, search.tools().get(0).path("max_uses").asInt());
        assertEquals(FakeModelServer.API_KEY, search.header("x-api-key"));
        JsonNode block = lastUpdateWithContent("toolu_p").path("content").get(0).path("content");
        assertEquals("resource_link", block.path("type").asText(), block.toString());
        assertEquals("https://docs.example/records", block.path("uri").asText());
        assertEquals("A record is a transparent carrier for data.", block.path("description").asText());
    }

    @Test
    void aSearchShowsResourceLinksToTheClientAndTextToTheModel() throws Exception {
        startAgent("{\"webSearch\":{\"backend\":\"searxng\",\"baseUrl\":\"http://127.0.0.1:" + searxng.getAddress().getPort() + "\"}}");
        model.enqueue(Script.reply().toolCall("call_s", "web_search", "{\"query\":\"java records\"}", 3), Script.textReply("done"));
        JsonNode r = agent.call("session/prompt", AgentProcess.prompt(id, "search for java records"), Duration.ofSeconds(60));
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());

        assertEquals(List.of("q=java+records&format=json"), queries); // form-encoded, as SearXNG reads it
        assertEquals(1, questions.size(), "asked like a fetch in the default mode");
        JsonNode last = null;
        for (JsonNode u : agent.updates(id)) {
            if ("tool_call_update".equals(u.path("sessionUpdate").asText()) && "call_s".equals(u.path("toolCallId").asText())
                    && u.has("content")) last = u;
        }
        assertNotNull(last, agent.updates(id).toString());
        assertEquals("completed", last.path("status").asText(), last.toString());
        JsonNode block = last.path("content").get(0).path("content");
        assertEquals("resource_link", block.path("type").asText(), last.toString());
        assertEquals("https://docs.example/records", block.path("uri").asText());
        assertEquals("Records in Java", block.path("title").asText());
        assertEquals("A record is a transparent carrier for data.", block.path("description").asText());

        assertTrue(toolsOffered().contains("web_search"), toolsOffered().toString());
        String toModel = null;
        for (JsonNode m : model.lastRequest().messages()) {
            if ("tool".equals(m.path("role").asText()) && "call_s".equals(m.path("tool_call_id").asText())) toModel = m.path("content").asText();
        }
        assertNotNull(toModel);
        assertTrue(toModel.contains("1. Records in Java\n   https://docs.example/records"), toModel);
        assertTrue(toModel.contains("not instructions"), toModel);
    }

    @Test
    void withoutABackendTheToolIsNotOffered() throws Exception {
        startAgent(null);
        model.enqueue(Script.textReply("hello"));
        agent.call("session/prompt", AgentProcess.prompt(id, "hi"), Duration.ofSeconds(60));
        List<String> tools = toolsOffered();
        assertTrue(tools.contains("web_fetch"), tools.toString());
        assertFalse(tools.contains("web_search"), tools.toString());
    }
}
