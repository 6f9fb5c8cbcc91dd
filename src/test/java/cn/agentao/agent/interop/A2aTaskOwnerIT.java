package cn.agentao.agent.interop;

import cn.agentao.agent.door.a2a.A2aServerProcess;
import cn.agentao.agent.store.postgres.PostgresStoreConfig;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.PostgresServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A task is its caller's (issue #27): two {@code agent a2a serve} processes on one real PostgreSQL database, each
 * with its own token, as two parties sharing a deployment. The second party, knowing the first's task id, can
 * neither read, follow, cancel, continue nor answer it, on the 0.3 wire and 1.0's JSON-RPC and HTTP+JSON bindings:
 * every attempt is "task not found", word for word what a task that does not exist gets. The first party's task is untouched (its question
 * still open, answered by its owner only), and the owner survives a restart: a new instance with the first token
 * reads the task from the database, the second token still does not. A context is its caller's in the same way
 * ({@link #anotherCredentialCannotContinueOrReadTheContext}).
 */
class A2aTaskOwnerIT {
    static final String TOKEN_A = "owner-token-a-51f0c2";
    static final String TOKEN_B = "owner-token-b-9e13d7";
    static final String SECRET = "SECRET-A-4471";

    @TempDir
    Path dir;
    FakeModelServer model;
    PostgresStoreConfig db;
    Path ws;
    Path outside;
    final List<A2aServerProcess> servers = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        db = PostgresServer.shared().freshDatabase();
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        outside = Files.createDirectories(dir.resolve("outside")).toRealPath();
        model.when(FakeModelServer.lastUserMessageContains("WRITE-OUTSIDE")).reply(Script.reply().toolCall("w1", "write_file",
                Json.object().put("path", outside.resolve("answered.txt").toString()).put("content", "x").toString()), Script.textReply("done"));
        model.when(FakeModelServer.lastUserMessageContains("HELLO")).replyAlways(Script.textReply("Hello from the agent"));
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (A2aServerProcess s : servers) s.close();
        model.close();
    }

    private A2aServerProcess instance(String name, String token) throws Exception {
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir.resolve(name));
        env.put("AGENT_STORE", db.display());
        env.put("A2A_TOKEN", token);
        A2aServerProcess s = A2aServerProcess.start(env, ws, "--cwd", ws.toString(), "--token-env", "A2A_TOKEN");
        servers.add(s);
        return s;
    }

    @Test
    void anotherCredentialCannotReadCancelFollowOrContinueTheTask() throws Exception {
        A2aServerProcess a = instance("a", TOKEN_A);
        A2aServerProcess b = instance("b", TOKEN_B);
        Caller first = new Caller(a.url(), TOKEN_A);
        Caller second = new Caller(b.url(), TOKEN_B);

        // the extended card a caller with the token reads is 1.0's card alone (each answer is checked against the
        // pinned 1.0 schema), its bearer scheme in 1.0's form
        JsonNode extended = first.v1("GetExtendedAgentCard", Json.object(), false).path("result");
        assertEquals("bearer", extended.path("securitySchemes").path("bearer").path("httpAuthSecurityScheme").path("scheme").asText(),
                extended.toString());
        assertTrue(extended.path("securityRequirements").path(0).path("schemes").has("bearer"), extended.toString());
        Caller.Rest restCard = first.rest("GET", "/extendedAgentCard", null);
        assertEquals(200, restCard.status(), restCard.body());

        JsonNode started = first.v03("message/send", sendParams("WRITE-OUTSIDE please", null));
        assertEquals("input-required", started.path("result").path("status").path("state").asText(), started.toString());
        String taskId = started.path("result").path("id").asText();
        String contextId = started.path("result").path("contextId").asText();
        String unknown = UUID.randomUUID().toString();

        // 0.3: every operation on the task, by the second credential, is "task not found" as for a task that does not exist
        ObjectNode byId = Json.object().put("id", taskId);
        assertNotFound(second.v03("tasks/get", byId), taskId, second.v03("tasks/get", Json.object().put("id", unknown)), unknown);
        assertNotFound(second.v03("tasks/cancel", byId), taskId, second.v03("tasks/cancel", Json.object().put("id", unknown)), unknown);
        assertNotFound(second.v03Stream("tasks/resubscribe", byId), taskId,
                second.v03Stream("tasks/resubscribe", Json.object().put("id", unknown)), unknown);
        assertNotFound(second.v03("message/send", sendParams("yes", taskId)), taskId,
                second.v03("message/send", sendParams("yes", unknown)), unknown);
        assertNotFound(second.v03Stream("message/stream", sendParams("yes", taskId)), taskId,
                second.v03Stream("message/stream", sendParams("yes", unknown)), unknown);
        ObjectNode push = Json.object().put("taskId", taskId);
        push.putObject("pushNotificationConfig").put("url", "https://hooks.example.com/a2a");
        ObjectNode pushUnknown = push.deepCopy().put("taskId", unknown);
        assertNotFound(second.v03("tasks/pushNotificationConfig/set", push), taskId,
                second.v03("tasks/pushNotificationConfig/set", pushUnknown), unknown);
        assertNotFound(second.v03("tasks/pushNotificationConfig/list", byId), taskId,
                second.v03("tasks/pushNotificationConfig/list", Json.object().put("id", unknown)), unknown);

        // 1.0: the same
        assertNotFound(second.v1("GetTask", byId, false), taskId, second.v1("GetTask", Json.object().put("id", unknown), false), unknown);
        assertNotFound(second.v1("CancelTask", byId, false), taskId, second.v1("CancelTask", Json.object().put("id", unknown), false), unknown);
        assertNotFound(second.v1("SubscribeToTask", byId, true), taskId,
                second.v1("SubscribeToTask", Json.object().put("id", unknown), true), unknown);
        assertNotFound(second.v1("SendMessage", v1SendParams("yes", taskId), false), taskId,
                second.v1("SendMessage", v1SendParams("yes", unknown), false), unknown);
        assertNotFound(second.v1("SendStreamingMessage", v1SendParams("yes", taskId), true), taskId,
                second.v1("SendStreamingMessage", v1SendParams("yes", unknown), true), unknown);
        ObjectNode v1Push = Json.object().put("taskId", taskId).put("url", "https://hooks.example.com/a2a");
        assertNotFound(second.v1("CreateTaskPushNotificationConfig", v1Push, false), taskId,
                second.v1("CreateTaskPushNotificationConfig", v1Push.deepCopy().put("taskId", unknown), false), unknown);
        assertNotFound(second.v1("ListTaskPushNotificationConfigs", Json.object().put("taskId", taskId), false), taskId,
                second.v1("ListTaskPushNotificationConfigs", Json.object().put("taskId", unknown), false), unknown);

        // 1.0 over HTTP+JSON: 404 TASK_NOT_FOUND, as for an unknown id
        for (String[] route : List.of(new String[] {"GET", "/tasks/ID"}, new String[] {"POST", "/tasks/ID:cancel"},
                new String[] {"POST", "/tasks/ID:subscribe"}, new String[] {"GET", "/tasks/ID/pushNotificationConfigs"})) {
            Caller.Rest theirs = second.rest(route[0], route[1].replace("ID", taskId), null);
            Caller.Rest none = second.rest(route[0], route[1].replace("ID", unknown), null);
            assertEquals(404, theirs.status(), route[1] + ": " + theirs.body());
            assertEquals(none.body().replace(unknown, "ID"), theirs.body().replace(taskId, "ID"), route[1]);
        }
        ObjectNode restSend = v1SendParams("yes", taskId);
        Caller.Rest restAnswer = second.rest("POST", "/message:send", restSend);
        assertEquals(404, restAnswer.status(), restAnswer.body());
        assertTrue(restAnswer.body().contains("TASK_NOT_FOUND"), restAnswer.body());

        for (JsonNode t : second.v1("ListTasks", Json.object(), false).path("result").path("tasks")) {
            assertFalse(t.path("id").asText().equals(taskId), "ListTasks shows the second caller none of the first's tasks");
        }
        assertFalse(Files.exists(outside.resolve("answered.txt")), "the second caller's \"yes\" answered nothing");

        // the first caller's task is as it was: still asking, answered by its owner only, then done
        JsonNode still = first.v03("tasks/get", byId);
        assertEquals("input-required", still.path("result").path("status").path("state").asText(), "not cancelled by the second caller: " + still);
        JsonNode answered = first.v1("SendMessage", v1SendParams("yes", taskId), false);
        assertEquals("TASK_STATE_COMPLETED", answered.path("result").path("task").path("status").path("state").asText(), answered.toString());
        assertTrue(Files.exists(outside.resolve("answered.txt")), "the owner's answer let the write run");
        assertEquals(contextId, answered.path("result").path("task").path("contextId").asText());

        // the second caller's own task is its own, and not the first's
        JsonNode theirs = second.v03("message/send", sendParams("HELLO from B", null));
        String theirTask = theirs.path("result").path("id").asText();
        assertEquals("completed", theirs.path("result").path("status").path("state").asText(), theirs.toString());

        // the owner is kept with the task in the database: a restarted instance with the first token serves it, not the second's
        assertEquals(0, a.terminate(), a.stderr());
        A2aServerProcess a2 = instance("a2", TOKEN_A);
        Caller firstAgain = new Caller(a2.url(), TOKEN_A);
        JsonNode afterRestart = firstAgain.v1("GetTask", byId, false);
        assertEquals("TASK_STATE_COMPLETED", afterRestart.path("result").path("status").path("state").asText(), afterRestart.toString());
        assertNotFound(firstAgain.v03("tasks/get", Json.object().put("id", theirTask)), theirTask,
                firstAgain.v03("tasks/get", Json.object().put("id", unknown)), unknown);
        assertNotFound(second.v03("tasks/get", byId), taskId, second.v03("tasks/get", Json.object().put("id", unknown)), unknown);
        JsonNode own = second.v03("tasks/get", Json.object().put("id", theirTask));
        assertEquals("completed", own.path("result").path("status").path("state").asText(), "the second caller's own task: " + own);
    }

    /**
     * A context is its caller's too: the second party, knowing the first's {@code contextId}, sends new messages
     * naming it over the 0.3 wire, 1.0 JSON-RPC and 1.0 HTTP+JSON: each is answered as a message in an unused context
     * would be (the same {@code contextId} back, a task of its own), and the model never sees the first party's
     * conversation; ListTasks of that context shows it only its own tasks. The first party still continues its
     * conversation, also from a restarted instance, which reads the context's history back from the database.
     */
    @Test
    void anotherCredentialCannotContinueOrReadTheContext() throws Exception {
        A2aServerProcess a = instance("a", TOKEN_A);
        A2aServerProcess b = instance("b", TOKEN_B);
        Caller first = new Caller(a.url(), TOKEN_A);
        Caller second = new Caller(b.url(), TOKEN_B);

        JsonNode started = first.v03("message/send", sendParams("HELLO, the code is " + SECRET, null));
        assertEquals("completed", started.path("result").path("status").path("state").asText(), started.toString());
        String contextId = started.path("result").path("contextId").asText();
        String firstTask = started.path("result").path("id").asText();

        // the second caller names the first's context on each wire: answered as in a context of its own
        Set<String> secondTasks = new HashSet<>();
        JsonNode v03 = modelSees(false, () -> second.v03("message/send",
                inContext(sendParams("HELLO over 0.3, what is the code?", null), contextId))).path("result");
        assertEquals("completed", v03.path("status").path("state").asText(), v03.toString());
        assertEquals(contextId, v03.path("contextId").asText(), "answered as for an unused context id: the same id back");
        secondTasks.add(v03.path("id").asText());

        JsonNode v1 = modelSees(false, () -> second.v1("SendMessage",
                inContext(v1SendParams("HELLO over 1.0, what is the code?", null), contextId), false))
                .path("result").path("task");
        assertEquals("TASK_STATE_COMPLETED", v1.path("status").path("state").asText(), v1.toString());
        assertEquals(contextId, v1.path("contextId").asText());
        secondTasks.add(v1.path("id").asText());

        JsonNode rest = modelSees(false, () -> {
            Caller.Rest r = second.rest("POST", "/message:send",
                    inContext(v1SendParams("HELLO over REST, what is the code?", null), contextId));
            assertEquals(200, r.status(), r.body());
            return Json.mapper().readTree(r.body());
        }).path("task");
        assertEquals("TASK_STATE_COMPLETED", rest.path("status").path("state").asText(), rest.toString());
        assertEquals(contextId, rest.path("contextId").asText());
        secondTasks.add(rest.path("id").asText());

        // ListTasks of that context shows the second caller only its own tasks (a shared store lists those of this instance)
        JsonNode listed = second.v1("ListTasks", Json.object().put("contextId", contextId), false);
        assertTrue(secondTasks.containsAll(ids(listed.path("result").path("tasks"))), listed.toString());
        Caller.Rest restListed = second.rest("GET", "/tasks?contextId=" + contextId, null);
        assertEquals(200, restListed.status(), restListed.body());
        assertTrue(secondTasks.containsAll(ids(Json.mapper().readTree(restListed.body()).path("tasks"))), restListed.body());
        assertFalse(secondTasks.contains(firstTask));

        // the owner still continues its conversation, from its instance and from a restarted one (history from the database)
        modelSees(true, () -> first.v03("message/send",
                inContext(sendParams("HELLO again, repeat the code", null), contextId)));
        assertEquals(0, a.terminate(), a.stderr());
        Caller firstAgain = new Caller(instance("a2", TOKEN_A).url(), TOKEN_A);
        JsonNode resumed = modelSees(true, () -> firstAgain.v1("SendMessage",
                inContext(v1SendParams("HELLO after the restart, repeat the code", null), contextId), false));
        assertEquals(contextId, resumed.path("result").path("task").path("contextId").asText(), resumed.toString());
        modelSees(false, () -> second.v03("message/send",
                inContext(sendParams("HELLO once more, what is the code?", null), contextId)));
    }

    /** Runs {@code send} (one turn) and checks whether the model's requests of that turn held the first caller's secret. */
    private JsonNode modelSees(boolean secret, Callable<JsonNode> send) throws Exception {
        int before = model.requests().size();
        JsonNode r = send.call();
        List<RecordedRequest> turn = model.requests().subList(before, model.requests().size());
        assertFalse(turn.isEmpty(), "the message reached the model: " + r);
        boolean seen = turn.stream().anyMatch(q -> q.rawBody().contains(SECRET));
        assertEquals(secret, seen, (secret ? "the owner's conversation goes on: " : "the first caller's conversation is not the second's: ") + r);
        return r;
    }

    private static ObjectNode inContext(ObjectNode params, String contextId) {
        ObjectNode message = (ObjectNode) params.get("message");
        message.remove("taskId");
        message.put("contextId", contextId);
        return params;
    }

    private static Set<String> ids(JsonNode tasks) {
        Set<String> ids = new HashSet<>();
        for (JsonNode t : tasks) ids.add(t.path("id").asText());
        return ids;
    }

    /** {@code r} is the same -32001 as {@code control} (about a task that does not exist), the ids aside. */
    private static void assertNotFound(JsonNode r, String taskId, JsonNode control, String unknown) {
        assertTrue(r.path("result").isMissingNode(), "no result: " + r);
        assertEquals(-32001, r.path("error").path("code").asInt(), r.toString());
        assertEquals(-32001, control.path("error").path("code").asInt(), control.toString());
        JsonNode error = r.path("error"), expected = control.path("error");
        assertEquals(expected.toString().replace(unknown, "ID"), error.toString().replace(taskId, "ID"),
                "nothing tells the task exists");
    }

    private static ObjectNode sendParams(String text, String taskId) {
        ObjectNode message = Json.object().put("kind", "message").put("messageId", UUID.randomUUID().toString()).put("role", "user");
        message.putArray("parts").addObject().put("kind", "text").put("text", text);
        if (taskId != null) message.put("taskId", taskId);
        ObjectNode params = Json.object();
        params.set("message", message);
        return params;
    }

    private static ObjectNode v1SendParams(String text, String taskId) {
        ObjectNode message = Json.object().put("messageId", UUID.randomUUID().toString()).put("role", "ROLE_USER").put("taskId", taskId);
        message.putArray("parts").addObject().put("text", text);
        ObjectNode params = Json.object();
        params.set("message", message);
        return params;
    }

    /**
     * One credential at one instance: JSON-RPC requests, plain or streamed (then the first event is the answer), and
     * HTTP+JSON requests (their status and body; a stream's first event).
     */
    private record Caller(String url, String token) {
        record Rest(int status, String body) {}

        Rest rest(String method, String path, ObjectNode body) throws Exception {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(60))
                    .header("Authorization", "Bearer " + token).header("A2A-Version", "1.0")
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.toString()));
            if (method.equals("POST")) b.header("Content-Type", "application/a2a+json");
            HttpResponse<Stream<String>> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofLines());
            try (Stream<String> lines = r.body()) { // a stream the caller got would go on: its first event is enough
                boolean events = r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream");
                String text = events ? lines.filter(l -> l.startsWith("data:")).findFirst().orElse("")
                        : String.join("\n", lines.toList());
                // what the server answered, in the pinned 1.0 schema
                String message = A2aV1IT.restAnswerOf(method, path);
                if (r.statusCode() >= 400) A2aV1Schema.assertRestError(Json.mapper().readTree(text));
                else if (message != null && !text.isEmpty()) {
                    A2aV1Schema.assertMessage(message, Json.mapper().readTree(events ? text.substring(5) : text), method + " " + path);
                }
                return new Rest(r.statusCode(), text);
            }
        }

        JsonNode v03(String method, ObjectNode params) throws Exception { return call(method, params, null, false); }

        JsonNode v03Stream(String method, ObjectNode params) throws Exception { return call(method, params, null, true); }

        JsonNode v1(String method, ObjectNode params, boolean stream) throws Exception { return call(method, params, "1.0", stream); }

        private JsonNode call(String method, ObjectNode params, String version, boolean stream) throws Exception {
            ObjectNode rq = Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", method);
            rq.set("params", params);
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "/")).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json").header("Authorization", "Bearer " + token)
                    .POST(HttpRequest.BodyPublishers.ofString(rq.toString()));
            if (version != null) b.header("A2A-Version", version);
            HttpClient client = HttpClient.newHttpClient();
            JsonNode answer;
            if (!stream) {
                answer = Json.mapper().readTree(client.send(b.build(), HttpResponse.BodyHandlers.ofString()).body());
            } else {
                HttpResponse<Stream<String>> r = client.send(b.build(), HttpResponse.BodyHandlers.ofLines());
                try (Stream<String> lines = r.body()) { // the first event only: a stream the caller got would go on
                    // a request refused before its stream began: 1.0 answers the plain JSON-RPC error, 0.3 an event stream
                    if (!r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
                        answer = Json.mapper().readTree(String.join("\n", lines.toList()));
                    } else {
                        String first = lines.filter(l -> l.startsWith("data:")).findFirst().orElse("data: {}");
                        answer = Json.mapper().readTree(first.substring(5));
                    }
                }
            }
            if ("1.0".equals(version)) A2aV1Schema.assertRpcResponse(method, answer); // in the pinned 1.0 schema
            return answer;
        }
    }
}
