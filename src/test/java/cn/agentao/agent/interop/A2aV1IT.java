package cn.agentao.agent.interop;

import cn.agentao.agent.door.a2a.A2aServerProcess;
import cn.agentao.agent.interop.A2aDoorSecurityIT.Response;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A2A 1.0 beside 0.3 on the real server, over raw HTTP (issue #28): the version chosen by {@code A2A-Version}, each
 * 1.0 JSON-RPC method and its shapes (no {@code kind}, ProtoJSON enum names, wrapped stream events, no
 * {@code final}, {@code ErrorInfo} in errors), one task read and driven by a 0.3 and a 1.0 client, and the 0.3
 * suite's findings (streaming errors as an event stream, the follow-up to a finished task, card caching).
 */
class A2aV1IT {
    @TempDir
    Path dir;
    FakeModelServer model;
    Path ws;
    Path outside;
    A2aServerProcess server;
    int port;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        outside = Files.createDirectories(dir.resolve("outside")).toRealPath();
        model.when(FakeModelServer.lastUserMessageContains("HELLO")).replyAlways(Script.textReply("hi there"));
        for (String marker : List.of("ASK-ONE", "ASK-TWO", "ASK-THREE")) {
            model.when(FakeModelServer.lastUserMessageContains(marker)).reply(Script.reply().toolCall("w-" + marker, "write_file",
                    Json.object().put("path", outside.resolve(marker + ".txt").toString()).put("content", "x").toString()),
                    Script.textReply("done"));
        }
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir);
        server = A2aServerProcess.start(env, ws, "--cwd", ws.toString());
        port = URI.create(server.url()).getPort();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) server.close();
        model.close();
    }

    // ---------------------------------------------------------------- the 0.3 suite's findings

    @Test
    void streamingErrorsComeAsAnEventStreamAndAFinishedTaskTakesNoMessage() throws Exception {
        Response badStream = call(null, "message/stream", Json.object());
        assertEquals(200, badStream.status(), badStream.toString());
        assertTrue(badStream.header("content-type").startsWith("text/event-stream"), badStream.toString());
        List<JsonNode> events = events(badStream);
        assertEquals(1, events.size(), badStream.toString());
        assertEquals(-32602, events.get(0).path("error").path("code").asInt(), badStream.toString());

        Response unknown = call(null, "tasks/resubscribe", Json.object().put("id", "no-such-task"));
        assertTrue(unknown.header("content-type").startsWith("text/event-stream"), unknown.toString());
        assertEquals(-32001, events(unknown).get(0).path("error").path("code").asInt(), unknown.toString());

        JsonNode done = call(null, "message/send", sendV03("HELLO", null)).json().path("result");
        assertEquals("completed", done.path("status").path("state").asText(), done.toString());
        Response followUp = call(null, "message/send", sendV03("HELLO again", done.path("id").asText()));
        assertEquals(-32004, followUp.json().path("error").path("code").asInt(), "UnsupportedOperationError: " + followUp);
    }

    @Test
    void theCardIsCachedRevalidatedAndNamesBothVersions() throws Exception {
        Response card = get("/.well-known/agent-card.json", Map.of());
        assertEquals(200, card.status(), card.toString());
        assertTrue(card.header("cache-control").contains("max-age"), card.toString());
        String etag = card.header("etag");
        assertTrue(etag != null && etag.startsWith("\""), card.toString());
        Response again = get("/.well-known/agent-card.json", Map.of("If-None-Match", etag));
        assertEquals(304, again.status(), again.toString());
        assertEquals("", again.body());
        assertEquals(200, get("/.well-known/agent-card.json", Map.of("If-None-Match", "\"other\"")).status());

        JsonNode c = card.json();
        A2aV1Schema.assertCard(c);
        assertEquals("0.3.0", c.path("protocolVersion").asText(), "0.3 clients still read the card");
        assertEquals("JSONRPC", c.path("preferredTransport").asText());
        Set<String> interfaces = new HashSet<>();
        for (JsonNode i : c.path("supportedInterfaces")) {
            // the REST routes hang under the same URL, named without its last slash (clients append "/message:send")
            String url = i.path("protocolBinding").asText().equals("HTTP+JSON") ? i.path("url").asText() + "/" : i.path("url").asText();
            assertEquals(c.path("url").asText(), url, c.toString());
            interfaces.add(i.path("protocolBinding").asText() + " " + i.path("protocolVersion").asText());
        }
        assertEquals(Set.of("JSONRPC 1.0", "HTTP+JSON 1.0", "JSONRPC 0.3"), interfaces, c.toString());
        assertFalse(c.path("capabilities").path("extendedAgentCard").asBoolean(true), "no extended card without a token: " + c);
        assertFalse(c.path("capabilities").has("stateTransitionHistory"), "0.3's field, gone from 1.0's AgentCapabilities: " + c);
        String modified = card.header("last-modified");
        assertTrue(modified != null, card.toString());
        java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.parse(modified);
    }

    /** The 1.0 TCK joins routes to the HTTP+JSON interface's url as strings, and reads answers as application/json. */
    @Test
    void theRestRoutesAreTheCardsUrlPlusTheRouteAndAnswerApplicationJson() throws Exception {
        String restUrl = null;
        for (JsonNode i : get("/.well-known/agent-card.json", Map.of()).json().path("supportedInterfaces")) {
            if (i.path("protocolBinding").asText().equals("HTTP+JSON")) restUrl = i.path("url").asText();
        }
        String send = URI.create(restUrl + "/message:send").getRawPath();
        Response sent = rest("POST", send, sendV1("HELLO", null, false).toString());
        assertEquals(200, sent.status(), send + ": " + sent);
        assertTrue(sent.header("content-type").startsWith("application/json"), sent.toString());
        assertEquals("TASK_STATE_COMPLETED", sent.json().path("task").path("status").path("state").asText(), sent.toString());

        Response missing = rest("GET", URI.create(restUrl + "/tasks/no-such-task").getRawPath(), null);
        assertEquals(404, missing.status(), missing.toString());
        assertTrue(missing.header("content-type").startsWith("application/json"), missing.toString());
        assertEquals("TASK_NOT_FOUND", missing.json().path("error").path("details").path(0).path("reason").asText(), missing.toString());

        Map<String, String> future = new LinkedHashMap<>(Map.of("Host", "127.0.0.1:" + port, "A2A-Version", "99.0",
                "Content-Type", "application/json"));
        Response refused = A2aDoorSecurityIT.request(port, "POST", send, future, sendV1("HELLO", null, false).toString());
        assertEquals(400, refused.status(), refused.toString());
        assertEquals("VERSION_NOT_SUPPORTED", refused.json().path("error").path("details").path(0).path("reason").asText(), refused.toString());
    }

    /** ProtoJSON parsers accept a field's proto name as well as its JSON name; the 1.0 TCK sends {@code task_id}. */
    @Test
    void protoFieldNamesAreReadAsTheirJsonNames() throws Exception {
        JsonNode a = call("1.0", "SendMessage", sendV1("HELLO one", null, false)).json().path("result").path("task");
        JsonNode b = call("1.0", "SendMessage", sendV1("HELLO two", null, false)).json().path("result").path("task");
        assertEquals("TASK_STATE_COMPLETED", b.path("status").path("state").asText(), b.toString());
        JsonNode page = call("1.0", "ListTasks", Json.object().put("page_size", 1)).json().path("result");
        assertEquals(1, page.path("tasks").size(), page.toString());
        assertFalse(page.path("nextPageToken").asText().isEmpty(), "a second page: " + page);
        JsonNode bare = call("1.0", "GetTask", Json.object().put("id", a.path("id").asText()).put("history_length", 0)).json().path("result");
        assertEquals(0, bare.path("history").size(), bare.toString());
        Response configs = call("1.0", "ListTaskPushNotificationConfigs", Json.object().put("task_id", a.path("id").asText()));
        assertEquals(0, configs.json().path("result").path("configs").size(), configs.toString());
    }

    // ---------------------------------------------------------------- negotiation

    @Test
    void theVersionIsNegotiatedByHeaderOrQuery() throws Exception {
        Response unsupported = call("2.0", "GetTask", Json.object().put("id", "x"));
        assertEquals(-32009, unsupported.json().path("error").path("code").asInt(), unsupported.toString());
        assertEquals("VERSION_NOT_SUPPORTED", errorInfo(unsupported.json()).path("reason").asText(), unsupported.toString());
        Response unsupportedStream = call("0.2", "message/stream", sendV03("HELLO", null));
        assertTrue(unsupportedStream.header("content-type").startsWith("text/event-stream"), unsupportedStream.toString());
        assertEquals(-32009, events(unsupportedStream).get(0).path("error").path("code").asInt(), unsupportedStream.toString());
        Response byQuery = rpcAt("/?A2A-Version=9.9", Map.of(), "tasks/get", Json.object().put("id", "x"));
        assertEquals(-32009, byQuery.json().path("error").path("code").asInt(), byQuery.toString());
        assertTrue(model.requests().isEmpty(), "no task ran for a refused version");

        // none: 0.3, as before (1.0's names are unknown there); 1.0 by the query parameter
        assertEquals(-32601, call(null, "SendMessage", sendV1("HELLO", null, false)).json().path("error").path("code").asInt());
        assertEquals(-32601, call("1.0", "message/send", sendV03("HELLO", null)).json().path("error").path("code").asInt());
        Response v1 = rpcAt("/?A2A-Version=1.0", Map.of(), "SendMessage", sendV1("HELLO", null, false));
        assertEquals("TASK_STATE_COMPLETED", v1.json().path("result").path("task").path("status").path("state").asText(), v1.toString());
        assertEquals("completed", call("0.3", "tasks/get", Json.object().put("id",
                v1.json().path("result").path("task").path("id").asText())).json().path("result").path("status").path("state").asText(),
                "A2A-Version: 0.3 is the 0.3 wire");
    }

    // ---------------------------------------------------------------- the 1.0 methods

    @Test
    void sendMessageAnswersATaskInTheShapesOf10() throws Exception {
        Response r = call("1.0", "SendMessage", sendV1("HELLO there", null, false));
        JsonNode task = r.json().path("result").path("task");
        assertEquals("TASK_STATE_COMPLETED", task.path("status").path("state").asText(), r.toString());
        assertEquals("hi there", task.path("artifacts").path(0).path("parts").path(0).path("text").asText(), r.toString());
        assertEquals("ROLE_USER", task.path("history").path(0).path("role").asText(), r.toString());
        assertEquals("HELLO there", task.path("history").path(0).path("parts").path(0).path("text").asText(), r.toString());
        assertFalse(r.body().contains("\"kind\""), "no kind discriminators in 1.0: " + r);

        Response later = call("1.0", "SendMessage", sendV1("ASK-ONE", null, true));
        JsonNode t = later.json().path("result").path("task");
        assertTrue(Set.of("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED").contains(t.path("status").path("state").asText()),
                "returnImmediately answers before the task ends: " + later);
        JsonNode asked = awaitState(t.path("id").asText(), "TASK_STATE_INPUT_REQUIRED");
        JsonNode question = asked.path("status").path("message");
        assertEquals("ROLE_AGENT", question.path("role").asText(), asked.toString());
        assertEquals("permission", question.path("parts").path(1).path("data").path("type").asText(), "a data part without kind: " + asked);

        Response unknown = call("1.0", "GetTask", Json.object().put("id", "no-such-task"));
        assertEquals(-32001, unknown.json().path("error").path("code").asInt(), unknown.toString());
        JsonNode info = errorInfo(unknown.json());
        assertEquals("TASK_NOT_FOUND", info.path("reason").asText(), unknown.toString());
        assertEquals("a2a-protocol.org", info.path("domain").asText());
        ObjectNode oldShape = sendV03("HELLO", null);
        Response refused = call("1.0", "SendMessage", oldShape);
        assertEquals(-32602, refused.json().path("error").path("code").asInt(), "a 0.3 role is not a 1.0 role: " + refused);
    }

    @Test
    void sendStreamingMessageStreamsWrappedEventsWithoutFinal() throws Exception {
        Response r = call("1.0", "SendStreamingMessage", sendV1("HELLO", null, false));
        assertTrue(r.header("content-type").startsWith("text/event-stream"), r.toString());
        List<JsonNode> events = events(r);
        assertTrue(events.get(0).path("result").has("task"), "the task first: " + r);
        String id = events.get(0).path("result").path("task").path("id").asText();
        StringBuilder text = new StringBuilder();
        for (JsonNode e : events) {
            JsonNode result = e.path("result");
            assertEquals(1, result.size(), "one wrapped payload per event: " + e);
            JsonNode payload = result.elements().next();
            assertFalse(payload.has("final") || payload.has("kind"), "no final, no kind: " + e);
            if (result.has("artifactUpdate")) {
                assertEquals(id, payload.path("taskId").asText());
                text.append(payload.path("artifact").path("parts").path(0).path("text").asText());
            }
        }
        assertEquals("hi there", text.toString(), r.toString());
        JsonNode last = events.get(events.size() - 1).path("result").path("statusUpdate");
        assertEquals("TASK_STATE_COMPLETED", last.path("status").path("state").asText(), r.toString());
        assertTrue(events.stream().anyMatch(e -> "TASK_STATE_WORKING".equals(e.path("result").path("statusUpdate").path("status").path("state").asText())),
                r.toString());

        // refused before any event: 1.0's answer is the plain JSON-RPC error (0.3's is an event stream, above)
        Response bad = call("1.0", "SendStreamingMessage", Json.object());
        assertTrue(bad.header("content-type").startsWith("application/json"), bad.toString());
        assertEquals(-32602, bad.json().path("error").path("code").asInt(), bad.toString());
    }

    @Test
    void getListCancelAndSubscribe() throws Exception {
        JsonNode a = call("1.0", "SendMessage", sendV1("HELLO one", null, false)).json().path("result").path("task");
        String ctx = a.path("contextId").asText();
        JsonNode b = call("1.0", "SendMessage", sendV1("HELLO two", ctx, false)).json().path("result").path("task");
        JsonNode c = call("1.0", "SendMessage", sendV1("ASK-ONE", null, false)).json().path("result").path("task");
        assertEquals("TASK_STATE_INPUT_REQUIRED", c.path("status").path("state").asText(), c.toString());

        JsonNode got = call("1.0", "GetTask", Json.object().put("id", a.path("id").asText()).put("historyLength", 1)).json().path("result");
        assertEquals(a.path("id").asText(), got.path("id").asText());
        assertEquals(1, got.path("history").size(), got.toString());

        JsonNode all = call("1.0", "ListTasks", Json.object()).json().path("result");
        assertEquals(3, all.path("totalSize").asInt(), all.toString());
        assertEquals("", all.path("nextPageToken").asText("missing"), all.toString());
        assertEquals(c.path("id").asText(), all.path("tasks").path(0).path("id").asText(), "most recently updated first: " + all);
        assertFalse(all.path("tasks").path(1).has("artifacts"), "artifacts only when asked for: " + all);
        JsonNode withArtifacts = call("1.0", "ListTasks", Json.object().put("includeArtifacts", true)).json().path("result");
        assertTrue(withArtifacts.path("tasks").path(1).has("artifacts"), withArtifacts.toString());

        JsonNode inCtx = call("1.0", "ListTasks", Json.object().put("contextId", ctx)).json().path("result");
        assertEquals(Set.of(a.path("id").asText(), b.path("id").asText()), ids(inCtx), inCtx.toString());
        JsonNode waiting = call("1.0", "ListTasks", Json.object().put("status", "TASK_STATE_INPUT_REQUIRED")).json().path("result");
        assertEquals(Set.of(c.path("id").asText()), ids(waiting), waiting.toString());

        List<String> paged = new ArrayList<>();
        String token = "";
        for (int page = 0; page < 5; page++) {
            JsonNode p = call("1.0", "ListTasks", Json.object().put("pageSize", 2).put("pageToken", token)).json().path("result");
            assertEquals(3, p.path("totalSize").asInt(), p.toString());
            p.path("tasks").forEach(t -> paged.add(t.path("id").asText()));
            token = p.path("nextPageToken").asText();
            if (token.isEmpty()) break;
        }
        assertEquals(ids(all).size(), paged.size(), "every task once over the pages: " + paged);
        assertEquals(ids(all), new HashSet<>(paged));
        assertEquals(-32602, call("1.0", "ListTasks", Json.object().put("pageToken", "not-a-token")).json().path("error").path("code").asInt());
        assertEquals(-32602, call("1.0", "ListTasks", Json.object().put("pageSize", 0)).json().path("error").path("code").asInt());

        // SubscribeToTask: the open task first (then the server listens), then its events until it is cancelled
        try (java.net.Socket sub = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
            sub.setSoTimeout(120_000);
            String rq = Json.object().put("jsonrpc", "2.0").put("id", 9).put("method", "SubscribeToTask")
                    .set("params", Json.object().put("id", c.path("id").asText())).toString();
            byte[] body = rq.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            sub.getOutputStream().write(("POST / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                    + "A2A-Version: 1.0\r\nConnection: close\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            sub.getOutputStream().write(body);
            sub.getOutputStream().flush();
            java.io.InputStream in = sub.getInputStream();
            java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
            while (!seen.toString(java.nio.charset.StandardCharsets.UTF_8).matches("(?s).*data: [^\n]*\n\n.*")) {
                int b1 = in.read();
                assertNotEquals(-1, b1, "the stream ended before its first event: " + seen);
                seen.write(b1);
            }
            Response cancelled = call("1.0", "CancelTask", Json.object().put("id", c.path("id").asText()));
            assertEquals("TASK_STATE_CANCELED", cancelled.json().path("result").path("status").path("state").asText(), cancelled.toString());
            in.transferTo(seen);
            List<JsonNode> events = dataLines(seen.toString(java.nio.charset.StandardCharsets.UTF_8));
            events.forEach(e -> A2aV1Schema.assertRpcStreamEvent("SubscribeToTask", e));
            assertEquals(c.path("id").asText(), events.get(0).path("result").path("task").path("id").asText(), seen.toString());
            assertEquals("TASK_STATE_CANCELED", events.get(events.size() - 1).path("result").path("statusUpdate").path("status").path("state").asText(),
                    seen.toString());
        }

        Response again = call("1.0", "CancelTask", Json.object().put("id", a.path("id").asText()));
        assertEquals(-32002, again.json().path("error").path("code").asInt(), again.toString());
        assertEquals("TASK_NOT_CANCELABLE", errorInfo(again.json()).path("reason").asText());
        Response ended = call("1.0", "SubscribeToTask", Json.object().put("id", a.path("id").asText()));
        assertTrue(ended.header("content-type").startsWith("application/json"), ended.toString());
        assertEquals(-32004, ended.json().path("error").path("code").asInt(), "a finished task: " + ended);
        ObjectNode toEnded = sendV1("HELLO", null, false);
        ((ObjectNode) toEnded.get("message")).put("taskId", a.path("id").asText());
        Response followUp = call("1.0", "SendMessage", toEnded);
        assertEquals(-32004, followUp.json().path("error").path("code").asInt(), followUp.toString());
    }

    // ---------------------------------------------------------------- one task, both versions

    @Test
    void aTaskOf03IsDrivenOver10AndTheReverse() throws Exception {
        // started over 0.3, read and answered over 1.0, read back over 0.3
        JsonNode old = call(null, "message/send", sendV03("ASK-ONE", null)).json().path("result");
        assertEquals("input-required", old.path("status").path("state").asText(), old.toString());
        JsonNode seen = call("1.0", "GetTask", Json.object().put("id", old.path("id").asText())).json().path("result");
        assertEquals("TASK_STATE_INPUT_REQUIRED", seen.path("status").path("state").asText(), seen.toString());
        ObjectNode answer = sendV1("no", null, false);
        ((ObjectNode) answer.get("message")).put("taskId", old.path("id").asText());
        JsonNode answered = call("1.0", "SendMessage", answer).json().path("result").path("task");
        assertEquals("TASK_STATE_COMPLETED", answered.path("status").path("state").asText(), answered.toString());
        assertFalse(Files.exists(outside.resolve("ASK-ONE.txt")), "the 1.0 answer \"no\" was the answer");
        JsonNode back = call(null, "tasks/get", Json.object().put("id", old.path("id").asText())).json().path("result");
        assertEquals("completed", back.path("status").path("state").asText(), back.toString());
        assertEquals("task", back.path("kind").asText(), "0.3 shapes over 0.3");

        // started over 1.0, cancelled over 0.3, read over 1.0
        JsonNode fresh = call("1.0", "SendMessage", sendV1("ASK-TWO", null, false)).json().path("result").path("task");
        assertEquals("TASK_STATE_INPUT_REQUIRED", fresh.path("status").path("state").asText(), fresh.toString());
        JsonNode cancelled = call(null, "tasks/cancel", Json.object().put("id", fresh.path("id").asText())).json().path("result");
        assertEquals("canceled", cancelled.path("status").path("state").asText(), cancelled.toString());
        JsonNode now = call("1.0", "GetTask", Json.object().put("id", fresh.path("id").asText())).json().path("result");
        assertEquals("TASK_STATE_CANCELED", now.path("status").path("state").asText(), now.toString());
        JsonNode listed = call("1.0", "ListTasks", Json.object()).json().path("result");
        assertEquals(Set.of(old.path("id").asText(), fresh.path("id").asText()), ids(listed), "0.3's tasks are listed over 1.0: " + listed);
        assertNotEquals(old.path("contextId").asText(), fresh.path("contextId").asText());
    }

    @Test
    void aTaskOf03IsReadAnsweredAndListedOverHttpJsonBehindTheSameDoor() throws Exception {
        JsonNode old = call(null, "message/send", sendV03("ASK-ONE", null)).json().path("result");
        assertEquals("input-required", old.path("status").path("state").asText(), old.toString());
        String id = old.path("id").asText();
        Response seen = rest("GET", "/tasks/" + id + "?historyLength=1", null);
        assertEquals(200, seen.status(), seen.toString());
        assertEquals("TASK_STATE_INPUT_REQUIRED", seen.json().path("status").path("state").asText(), seen.toString());
        assertEquals(1, seen.json().path("history").size(), seen.toString());
        ObjectNode answer = sendV1("no", null, false);
        ((ObjectNode) answer.get("message")).put("taskId", id);
        Response answered = rest("POST", "/message:send", answer.toString());
        assertEquals("TASK_STATE_COMPLETED", answered.json().path("task").path("status").path("state").asText(), answered.toString());
        assertFalse(Files.exists(outside.resolve("ASK-ONE.txt")), "the REST answer \"no\" was the answer");
        assertEquals("completed", call(null, "tasks/get", Json.object().put("id", id)).json().path("result").path("status").path("state").asText());
        Response listed = rest("GET", "/tasks?status=TASK_STATE_COMPLETED&pageSize=10", null);
        assertEquals(Set.of(id), ids(listed.json()), listed.toString());

        // the door's checks hold on every route: a web page, a rebound name, a form post
        int modelCalls = model.requests().size();
        Map<String, String> page = new LinkedHashMap<>(Map.of("Host", "127.0.0.1:" + port, "A2A-Version", "1.0", "Origin", "http://evil.example"));
        assertEquals(403, A2aDoorSecurityIT.request(port, "GET", "/tasks/" + id, page, null).status());
        Map<String, String> rebound = new LinkedHashMap<>(Map.of("Host", "evil.example:" + port, "A2A-Version", "1.0"));
        assertEquals(421, A2aDoorSecurityIT.request(port, "GET", "/tasks", rebound, null).status());
        Map<String, String> form = new LinkedHashMap<>(Map.of("Host", "127.0.0.1:" + port, "A2A-Version", "1.0",
                "Content-Type", "application/x-www-form-urlencoded"));
        assertEquals(415, A2aDoorSecurityIT.request(port, "POST", "/message:send", form, sendV1("HELLO", null, false).toString()).status());
        assertEquals(modelCalls, model.requests().size(), "no refused request reached the model");
    }

    /** A webhook given with the message (1.0's {@code configuration.taskPushNotificationConfig}) hears the task from its start. */
    @Test
    void aWebhookGivenWithTheMessageHearsTheTask() throws Exception {
        List<String[]> posts = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer hook = startHook(posts);
        try {
            restartReachingPrivateNetworks();
            ObjectNode send = sendV1("HELLO hook", null, false);
            ObjectNode config = send.putObject("configuration").putObject("taskPushNotificationConfig")
                    .put("id", "inline").put("url", "http://127.0.0.1:" + hook.getAddress().getPort() + "/inline");
            config.putObject("authentication").put("scheme", "Bearer").put("credentials", "c2");
            JsonNode task = call("1.0", "SendMessage", send).json().path("result").path("task");
            assertEquals("TASK_STATE_COMPLETED", task.path("status").path("state").asText(), task.toString());
            JsonNode listed = call("1.0", "ListTaskPushNotificationConfigs", Json.object().put("taskId", task.path("id").asText())).json();
            assertEquals("inline", listed.path("result").path("configs").path(0).path("id").asText(), listed.toString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (posts.stream().noneMatch(p -> p[3].contains("TASK_STATE_COMPLETED")) && System.nanoTime() < deadline) Thread.sleep(50);
            String[] done = posts.stream().filter(p -> p[3].contains("TASK_STATE_COMPLETED")).findFirst().orElse(null);
            assertTrue(done != null, "the webhook heard the task complete: " + posts.size() + " posts");
            assertEquals(task.path("id").asText(), Json.mapper().readTree(done[3]).path("task").path("id").asText(), done[3]);
            assertEquals("Bearer c2", done[2]);

            int modelCalls = model.requests().size();
            ObjectNode refused = sendV1("HELLO refused", null, false);
            refused.putObject("configuration").putObject("taskPushNotificationConfig").put("url", "ftp://127.0.0.1/hook");
            Response r = call("1.0", "SendMessage", refused);
            assertEquals(-32602, r.json().path("error").path("code").asInt(), r.toString());
            assertEquals(1, call("1.0", "ListTasks", Json.object()).json().path("result").path("tasks").size(), "a refused webhook made no task");
            assertEquals(modelCalls, model.requests().size(), "nor ran a turn");
        } finally {
            hook.stop(0);
        }
    }

    /** A webhook receiver on loopback recording each POST: path, content type, authorization, body. */
    private static com.sun.net.httpserver.HttpServer startHook(List<String[]> posts) throws java.io.IOException {
        com.sun.net.httpserver.HttpServer hook = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        hook.createContext("/", ex -> {
            posts.add(new String[] {ex.getRequestURI().getPath(), ex.getRequestHeaders().getFirst("Content-Type"),
                    ex.getRequestHeaders().getFirst("Authorization"), new String(ex.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)});
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        hook.start();
        return hook;
    }

    /** The server again, allowed to reach private addresses (as web_fetch then may), so webhooks may be on loopback. */
    private void restartReachingPrivateNetworks() throws Exception {
        server.close();
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir);
        env.put("AGENT_ALLOW_PRIVATE_NETWORK", "1");
        server = A2aServerProcess.start(env, ws, "--cwd", ws.toString());
        port = URI.create(server.url()).getPort();
    }

    @Test
    void webhooksGetTheirOwnVersionsPayload() throws Exception {
        List<String[]> posts = new java.util.concurrent.CopyOnWriteArrayList<>(); // path, content type, authorization, body
        com.sun.net.httpserver.HttpServer hook = startHook(posts);
        try {
            restartReachingPrivateNetworks();
            String hookUrl = "http://127.0.0.1:" + hook.getAddress().getPort();
            Response started = rest("POST", "/message:send", sendV1("ASK-TWO", null, false).toString());
            String id = started.json().path("task").path("id").asText();
            assertEquals("TASK_STATE_INPUT_REQUIRED", started.json().path("task").path("status").path("state").asText(), started.toString());

            ObjectNode v1Hook = Json.object().put("id", "v1").put("url", hookUrl + "/v1").put("token", "t1");
            v1Hook.putObject("authentication").put("scheme", "Bearer").put("credentials", "c1");
            Response created = rest("POST", "/tasks/" + id + "/pushNotificationConfigs", v1Hook.toString());
            assertEquals(201, created.status(), created.toString());
            assertEquals("Bearer", created.json().path("authentication").path("scheme").asText(), created.toString());
            ObjectNode v03Hook = Json.object().put("taskId", id);
            v03Hook.putObject("pushNotificationConfig").put("id", "v03").put("url", hookUrl + "/v03");
            assertEquals("v03", call(null, "tasks/pushNotificationConfig/set", v03Hook).json().path("result").path("pushNotificationConfig").path("id").asText());
            Response both = rest("GET", "/tasks/" + id + "/pushNotificationConfigs", null);
            assertEquals(2, both.json().path("configs").size(), both.toString());

            assertEquals("TASK_STATE_CANCELED", rest("POST", "/tasks/" + id + ":cancel", null).json().path("status").path("state").asText());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (posts.size() < 2 && System.nanoTime() < deadline) Thread.sleep(50);
            Map<String, String[]> byPath = new java.util.HashMap<>();
            for (String[] p : posts) byPath.put(p[0], p);
            String[] v1 = byPath.get("/v1");
            String[] v03 = byPath.get("/v03");
            assertTrue(v1 != null && v03 != null, "both webhooks were called: " + posts.size());
            JsonNode v1Body = Json.mapper().readTree(v1[3]);
            A2aV1Schema.assertMessage("StreamResponse", v1Body, "the 1.0 webhook's body");
            assertEquals("TASK_STATE_CANCELED", v1Body.path("task").path("status").path("state").asText(), "a 1.0 StreamResponse: " + v1[3]);
            assertTrue(v1[1].startsWith("application/a2a+json"), v1[1]);
            assertEquals("Bearer c1", v1[2]);
            JsonNode v03Body = Json.mapper().readTree(v03[3]);
            assertEquals("canceled", v03Body.path("status").path("state").asText(), "0.3's task: " + v03[3]);
            assertEquals("task", v03Body.path("kind").asText());

            Response deleted = rest("DELETE", "/tasks/" + id + "/pushNotificationConfigs/v1", null);
            assertEquals(204, deleted.status(), deleted.toString());
            Response gone = rest("GET", "/tasks/" + id + "/pushNotificationConfigs/v1", null);
            assertEquals(400, gone.status(), gone.toString());
        } finally {
            hook.stop(0);
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * An HTTP+JSON request with {@code A2A-Version: 1.0}; a body is sent as {@code application/a2a+json}. What the
     * server answers is checked against the pinned 1.0 schema ({@link #assertRestAnswerValid}).
     */
    private Response rest(String method, String path, String body) throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Host", "127.0.0.1:" + port);
        headers.put("A2A-Version", "1.0");
        if (method.equals("POST")) headers.put("Content-Type", "application/a2a+json");
        Response r = A2aDoorSecurityIT.request(port, method, path, headers, method.equals("POST") && body == null ? "" : body);
        assertRestAnswerValid(method, path, r);
        return r;
    }

    /** The 1.0 message each HTTP+JSON route answers with (its body, or each SSE event's data); null for none. */
    static String restAnswerOf(String method, String path) {
        String route = path.replaceFirst("\\?.*", "");
        if (method.equals("POST") && route.endsWith("/message:send")) return "SendMessageResponse";
        if (method.equals("POST") && (route.endsWith("/message:stream") || route.endsWith(":subscribe"))) return "StreamResponse";
        if (method.equals("POST") && route.endsWith(":cancel")) return "Task";
        if (route.matches(".*/tasks/[^/]+/pushNotificationConfigs")) {
            return method.equals("POST") ? "TaskPushNotificationConfig" : "ListTaskPushNotificationConfigsResponse";
        }
        if (route.matches(".*/tasks/[^/]+/pushNotificationConfigs/[^/]+")) return method.equals("GET") ? "TaskPushNotificationConfig" : null;
        if (method.equals("GET") && route.endsWith("/tasks")) return "ListTasksResponse";
        if (method.equals("GET") && route.matches(".*/tasks/[^/]+")) return "Task";
        if (method.equals("GET") && route.endsWith("/extendedAgentCard")) return "AgentCard";
        return null;
    }

    /** An HTTP+JSON answer in the 1.0 schema: an error as {@code google.rpc.Status}, else the route's message. */
    static void assertRestAnswerValid(String method, String path, Response r) throws Exception {
        if (r.status() >= 400) {
            A2aV1Schema.assertRestError(r.json());
            return;
        }
        String message = restAnswerOf(method, path);
        if (message == null) return;
        String type = r.header("content-type");
        if (type != null && type.startsWith("text/event-stream")) {
            for (JsonNode e : events(r)) A2aV1Schema.assertMessage(message, e, method + " " + path + " event");
        } else {
            A2aV1Schema.assertMessage(message, r.json(), method + " " + path);
        }
    }

    private JsonNode awaitState(String id, String state) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            JsonNode t = call("1.0", "GetTask", Json.object().put("id", id)).json().path("result");
            if (state.equals(t.path("status").path("state").asText()) || System.nanoTime() > deadline) return t;
            Thread.sleep(50);
        }
    }

    private static Set<String> ids(JsonNode list) {
        Set<String> ids = new HashSet<>();
        list.path("tasks").forEach(t -> ids.add(t.path("id").asText()));
        return ids;
    }

    private static JsonNode errorInfo(JsonNode response) {
        for (JsonNode d : response.path("error").path("data")) {
            if ("type.googleapis.com/google.rpc.ErrorInfo".equals(d.path("@type").asText())) return d;
        }
        return Json.object();
    }

    private static List<JsonNode> events(Response r) throws Exception {
        return dataLines(r.body());
    }

    /** The JSON of each SSE {@code data:} line (each event is written, and so chunked, whole). */
    private static List<JsonNode> dataLines(String text) throws Exception {
        List<JsonNode> events = new ArrayList<>();
        for (String line : text.split("\r?\n")) {
            if (line.startsWith("data: ")) events.add(Json.mapper().readTree(line.substring(6)));
        }
        return events;
    }

    private static ObjectNode sendV03(String text, String taskId) {
        ObjectNode message = Json.object().put("kind", "message").put("messageId", UUID.randomUUID().toString()).put("role", "user");
        if (taskId != null) message.put("taskId", taskId);
        message.putArray("parts").addObject().put("kind", "text").put("text", text);
        ObjectNode params = Json.object();
        params.set("message", message);
        return params;
    }

    private static ObjectNode sendV1(String text, String contextId, boolean returnImmediately) {
        ObjectNode message = Json.object().put("messageId", UUID.randomUUID().toString()).put("role", "ROLE_USER");
        if (contextId != null) message.put("contextId", contextId);
        message.putArray("parts").addObject().put("text", text);
        ObjectNode params = Json.object();
        params.set("message", message);
        if (returnImmediately) params.putObject("configuration").put("returnImmediately", true);
        return params;
    }

    private Response call(String version, String method, ObjectNode params) throws Exception {
        return rpcAt("/", version == null ? Map.of() : Map.of("A2A-Version", version), method, params);
    }

    private Response rpcAt(String path, Map<String, String> extra, String method, ObjectNode params) throws Exception {
        ObjectNode rq = Json.object().put("jsonrpc", "2.0").put("id", 7).put("method", method);
        rq.set("params", params);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Host", "127.0.0.1:" + port);
        headers.put("Content-Type", "application/json");
        headers.putAll(extra);
        Response r = A2aDoorSecurityIT.request(port, "POST", path, headers, rq.toString());
        String version = extra.containsKey("A2A-Version") ? extra.get("A2A-Version")
                : path.contains("A2A-Version=") ? path.replaceFirst(".*A2A-Version=([^&]*).*", "$1") : null;
        if (version != null && !version.equals("0.3")) assertRpcAnswerValid(version, method, r);
        return r;
    }

    /**
     * A JSON-RPC answer to a request that did not ask for 0.3, checked against the pinned 1.0 schema: over 1.0 the
     * method's response (or each streamed event); for a version refused, the 1.0 error it is answered with.
     */
    static void assertRpcAnswerValid(String version, String method, Response r) throws Exception {
        String type = r.header("content-type");
        List<JsonNode> answers = type != null && type.startsWith("text/event-stream") ? events(r) : List.of(r.json());
        for (JsonNode a : answers) {
            if (!version.equals("1.0") || a.has("error")) A2aV1Schema.assertRpcError(a);
            else A2aV1Schema.assertRpcResponse(method, a);
        }
    }

    private Response get(String path, Map<String, String> extra) throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Host", "127.0.0.1:" + port);
        headers.putAll(extra);
        return A2aDoorSecurityIT.request(port, "GET", path, headers, null);
    }
}
