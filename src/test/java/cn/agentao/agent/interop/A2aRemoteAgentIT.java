package cn.agentao.agent.interop;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Remote agents as tools: the official A2A JS SDK server (interop/a2a/remote-agent.mjs, v0.3 layer) is the remote
 * agent, configured in the user's config.json; the scripted model calls {@code a2a__remote} through a real ACP
 * session. Checks what a user sees (the streamed answer in the tool call, the question passed back, the follow-up
 * in the same remote context, the remote task cancelled with the turn, an unreachable agent in plain words) and
 * that every request our client sent matched the A2A 0.3 JSON schema. Then the same against the SDK as a native A2A
 * 1.0 agent (no 0.3 layer), whose card offers JSON-RPC and HTTP+JSON, or HTTP+JSON only: our client speaks 1.0 on
 * the binding it prefers, with {@code A2A-Version: 1.0} on every request.
 */
class A2aRemoteAgentIT {
    static final String TOKEN = "remote-a2a-token-81c";

    @TempDir
    Path dir;
    FakeModelServer model;
    Process remote;
    String remoteUrl;
    AgentProcess agent;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void startModel() throws Exception {
        Interop.ensureInstalled();
        model = FakeModelServer.start();
    }

    /** Starts the remote agent ({@code --wire 0.3|jsonrpc|rest}) and our agent configured to use it. */
    void start(String wire) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Interop.node("a2a/remote-agent.mjs", "--token", TOKEN, "--wire", wire)).directory(Interop.dir().toFile());
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        remote = pb.start();
        String line = new BufferedReader(new InputStreamReader(remote.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertNotNull(line, "the remote agent did not start");
        remoteUrl = "http://127.0.0.1:" + line.replaceAll("\\D", "");
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        ObjectNode config = Json.object();
        ObjectNode agents = config.putObject("a2aAgents");
        agents.putObject("remote").put("url", remoteUrl).put("tokenEnv", "REMOTE_AGENT_TOKEN");
        agents.putObject("down").put("url", "http://127.0.0.1:" + closedPort);
        Path configDir = Files.createDirectories(dir.resolve("config/agent"));
        Files.writeString(configDir.resolve("config.json"), config.toString());
        Map<String, String> env = new java.util.HashMap<>(model.openAiEnvironment());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("REMOTE_AGENT_TOKEN", TOKEN);
        agent = AgentProcess.start(env, "--acp");
        agent.onClientRequest("session/request_permission", p -> {
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
            return r;
        });
        JsonNode init = agent.call("initialize", Json.object().put("protocolVersion", 1).set("clientCapabilities", Json.object()));
        assertTrue(init.has("result"), init.toString());
    }

    @AfterEach
    void stop() throws Exception {
        if (agent == null) {
            model.close();
            return;
        }
        try {
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC");
            assertFalse(agent.stderr().contains(TOKEN), "the remote agent's token is never logged");
        } finally {
            agent.close();
            model.close();
            remote.destroy();
            remote.waitFor();
        }
    }

    private String newSession() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        JsonNode r = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()));
        assertTrue(r.has("result"), r.toString());
        return r.path("result").path("sessionId").asText();
    }

    private JsonNode prompt(String sessionId, String text) throws Exception {
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        JsonNode r = agent.call("session/prompt", p, Duration.ofSeconds(60));
        assertTrue(r.has("result"), r.toString());
        return r.path("result");
    }

    private static String toolCall(String tool, String message) {
        return Json.object().put("message", message).toString();
    }

    /** The text the model got back for a tool call (from the follow-up model request). */
    private String toolResultSentToModel(String callId) {
        for (var req : model.requests()) {
            for (JsonNode m : req.body().path("messages")) {
                if ("tool".equals(m.path("role").asText()) && callId.equals(m.path("tool_call_id").asText())) return m.path("content").asText();
            }
        }
        return null;
    }

    private JsonNode report() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(remoteUrl + "/_test/report")).build(), HttpResponse.BodyHandlers.ofString());
        return Json.mapper().readTree(r.body());
    }

    @Test
    void askQuestionFollowUpCancelAndUnreachable() throws Exception {
        start("0.3");
        JsonNode rep = converse();
        assertEquals(List.of(), Json.mapper().convertValue(rep.path("violations"), List.class), "requests matching the A2A 0.3 schema");
    }

    @Test
    void aNative10AgentIsSpokenToOverJsonRpc10() throws Exception {
        start("jsonrpc");
        List<String> methods = requestsAllOf10(converse());
        assertTrue(methods.contains("SendStreamingMessage") && methods.contains("CancelTask"), "the 1.0 JSON-RPC methods: " + methods);
        assertTrue(methods.stream().noneMatch(m -> m.contains("/")), "no 0.3 method, no REST route when JSON-RPC 1.0 is offered: " + methods);
    }

    @Test
    void aNative10AgentOfferingOnlyHttpJsonIsSpokenToOverRest() throws Exception {
        start("rest");
        List<String> what = requestsAllOf10(converse());
        assertTrue(what.contains("POST /rest/message:stream"), "the HTTP+JSON streaming route: " + what);
        assertTrue(what.stream().anyMatch(w -> w.matches("POST /rest/tasks/[^/]+:cancel")), "the HTTP+JSON cancel route: " + what);
    }

    /**
     * What the remote received (JSON-RPC methods or REST routes), each request having said {@code A2A-Version: 1.0}
     * and being valid against the pinned A2A 1.0 schema.
     */
    private static List<String> requestsAllOf10(JsonNode rep) {
        List<String> what = new java.util.ArrayList<>();
        for (JsonNode v : rep.path("versions")) {
            assertEquals("1.0", v.path("version").asText(), "A2A-Version on every request: " + rep);
            what.add(v.path("what").asText());
        }
        assertFalse(rep.path("received").isEmpty(), rep.toString());
        for (JsonNode r : rep.path("received")) assertValid10Request(r.path("method").asText(), r.path("path").asText(), r.path("body"));
        return what;
    }

    /**
     * A request our client sent to a 1.0 agent, in the 1.0 schema: a JSON-RPC request by its method's params; an
     * HTTP+JSON body as its route's request message (with the id the path carries).
     */
    private static void assertValid10Request(String method, String path, JsonNode body) {
        if (path.startsWith("/rest/")) {
            String route = path.substring("/rest".length());
            if (method.equals("POST") && (route.equals("/message:send") || route.equals("/message:stream"))) {
                A2aV1Schema.assertMessage("SendMessageRequest", body, method + " " + path);
            } else if (method.equals("POST") && route.matches("/tasks/[^/]+:(cancel|subscribe)")) {
                ObjectNode request = body.isObject() ? ((ObjectNode) body).deepCopy() : Json.object();
                request.put("id", route.substring("/tasks/".length(), route.lastIndexOf(':')));
                A2aV1Schema.assertMessage(route.endsWith(":cancel") ? "CancelTaskRequest" : "SubscribeToTaskRequest", request, method + " " + path);
            } else if (!method.equals("GET")) {
                fail("a request to a route our client has no business with: " + method + " " + path);
            }
        } else {
            A2aV1Schema.assertRpcRequest(body);
        }
    }

    /**
     * Echo (two calls, one remote context), a question and its answer, an unreachable agent, and a remote task
     * cancelled with the turn; the remote's report afterwards.
     */
    private JsonNode converse() throws Exception {
        model.when(FakeModelServer.lastUserMessageContains("ECHO-TEST")).reply(
                Script.reply().toolCall("e1", "a2a__remote", toolCall("remote", "hello remote")),
                Script.reply().toolCall("e2", "a2a__remote", toolCall("remote", "and again")),
                Script.textReply("ok"));
        model.when(FakeModelServer.lastUserMessageContains("ASK-TEST")).reply(
                Script.reply().toolCall("q1", "a2a__remote", toolCall("remote", "ASK me for a colour")),
                Script.reply().toolCall("q2", "a2a__remote", toolCall("remote", "blue")),
                Script.textReply("done"));
        model.when(FakeModelServer.lastUserMessageContains("DOWN-TEST")).reply(
                Script.reply().toolCall("d1", "a2a__down", toolCall("down", "anyone there?")), Script.textReply("noted"));
        model.when(FakeModelServer.lastUserMessageContains("SLOW-TEST")).reply(
                Script.reply().toolCall("s1", "a2a__remote", toolCall("remote", "SLOW please")), Script.textReply("stopped"));

        String session = newSession();
        assertEquals("end_turn", prompt(session, "ECHO-TEST").path("stopReason").asText());
        assertEquals("echo: hello remote", toolResultSentToModel("e1"));
        assertEquals("echo: and again", toolResultSentToModel("e2"));
        boolean streamedIntoTheCall = agent.updates(session).stream().anyMatch(u -> "tool_call_update".equals(u.path("sessionUpdate").asText())
                && u.path("content").toString().contains("echo: hello remote"));
        assertTrue(streamedIntoTheCall, "the remote answer is shown in the tool call");
        String tools = model.requests().get(0).body().path("tools").toString();
        assertTrue(tools.contains("a2a__remote") && tools.contains("a2a__down"), tools);

        assertEquals("end_turn", prompt(session, "ASK-TEST").path("stopReason").asText());
        String question = toolResultSentToModel("q1");
        assertTrue(question != null && question.contains("Which colour do you want?") && question.contains("a2a__remote"), question);
        assertEquals("answered: blue", toolResultSentToModel("q2"));

        assertEquals("end_turn", prompt(session, "DOWN-TEST").path("stopReason").asText());
        String down = toolResultSentToModel("d1");
        assertTrue(down != null && down.contains("\"down\" is unavailable") && down.contains("cannot be reached"), down);

        ObjectNode p = Json.object().put("sessionId", session);
        p.putArray("prompt").addObject().put("type", "text").put("text", "SLOW-TEST");
        long id = agent.start("session/prompt", p);
        // the remote task is running once its first words show in the tool call
        agent.await(m -> "session/update".equals(m.path("method").asText())
                && m.path("params").path("update").path("content").toString().contains("working on it"), Duration.ofSeconds(30));
        agent.notify("session/cancel", Json.object().put("sessionId", session));
        JsonNode r = agent.awaitResponse(id, Duration.ofSeconds(30));
        assertEquals("cancelled", r.path("result").path("stopReason").asText(), r.toString());
        JsonNode rep = report();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (rep.path("canceled").isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            rep = report();
        }
        assertEquals(1, rep.path("canceled").size(), "the remote task was cancelled with the turn: " + rep);
        assertEquals(0, rep.path("authFailures").asInt(), "every request carried the token");
        // the follow-up, the question's answer and later calls reused the remote context of the session
        JsonNode contexts = rep.path("contexts");
        assertTrue(contexts.get(0).isNull(), "the first call starts a remote context");
        for (int i = 1; i < 5; i++) assertFalse(contexts.get(i).isNull(), "call " + i + " continues the remote context: " + rep);
        assertTrue(rep.path("taskIds").get(3).isTextual(), "the answer went to the task that asked: " + rep);
        return rep;
    }
}
