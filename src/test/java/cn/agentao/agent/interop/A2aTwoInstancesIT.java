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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Two {@code agent a2a serve} processes (ports from the OS) on one real PostgreSQL database, as behind a load
 * balancer: the official A2A JS SDK switches between them for get, resubscribe, continue and cancel
 * (interop/a2a/two-instances.mjs); an instance killed with SIGKILL mid-turn leaves its context to the other, which
 * continues it with every completed message.
 */
class A2aTwoInstancesIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    PostgresStoreConfig db;
    Path ws;
    final List<A2aServerProcess> servers = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        Interop.ensureInstalled();
        model = FakeModelServer.start();
        db = PostgresServer.shared().freshDatabase();
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        model.when(FakeModelServer.lastUserMessageContains("HELLO")).replyAlways(Script.reply().text("Hello ", "from ", "the agent"));
        model.when(FakeModelServer.lastUserMessageContains("DRIP")).replyAlways(
                Script.reply().text("drip-1 ").pause(1000).text("drip-2 ").pause(1000).text("drip-3"));
        model.when(FakeModelServer.lastUserMessageContains("SLOW")).replyAlways(Script.reply().text("partial ").hang());
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (A2aServerProcess s : servers) s.close();
        model.close();
    }

    private A2aServerProcess instance(String name) throws Exception {
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir.resolve(name));
        env.put("AGENT_STORE", db.display());
        A2aServerProcess s = A2aServerProcess.start(env, ws, "--cwd", ws.toString());
        servers.add(s);
        return s;
    }

    /** The model requests whose last user message contains {@code text}. */
    private List<RecordedRequest> requestsFor(String text) {
        return model.requests().stream().filter(r -> r.lastUserMessage() != null && r.lastUserMessage().contains(text)).toList();
    }

    @Test
    void theSdkClientSwitchesBetweenTwoInstances() throws Exception {
        A2aServerProcess a = instance("a");
        A2aServerProcess b = instance("b");
        Interop.Result r = Interop.run(Interop.node("a2a/two-instances.mjs", "--a", a.url(), "--b", b.url()), Map.of(), ws,
                Duration.ofSeconds(180));
        JsonNode summary = Json.mapper().readTree(r.stdout().isBlank() ? "{}" : r.stdout());
        String context = "driver output:\n" + r.stdout() + "\n" + Interop.tail(r.stderr()) + "\nA:\n" + Interop.tail(a.stderr())
                + "\nB:\n" + Interop.tail(b.stderr());
        assertTrue(summary.path("failures").isArray() && summary.path("failures").isEmpty(), context);
        assertEquals(0, r.exitCode(), context);

        String onB = requestsFor("HELLO two, on B").getLast().messages().toString();
        assertTrue(onB.contains("HELLO one, on A") && onB.contains("Hello from the agent"), "B continued A's conversation: " + onB);
        String onA = requestsFor("HELLO five, on A").getLast().messages().toString();
        assertTrue(onA.contains("HELLO two, on B") && onA.contains("DRIP three") && onA.contains("SLOW four"),
                "A continued from what B added: " + onA);
        assertEquals(1, onA.split("HELLO one, on A", -1).length - 1, "nothing doubled: " + onA);
        RecordedRequest slow = requestsFor("SLOW four").getLast();
        assertTrue(slow.awaitClientDisconnect(Duration.ofSeconds(30)), "the cancel through B stopped the model call on A");
        assertEquals(0, a.terminate(), a.stderr());
        assertEquals(0, b.terminate(), b.stderr());
    }

    @Test
    void anInstanceKilledMidTurnLeavesTheContextToTheOther() throws Exception {
        A2aServerProcess a = instance("a");
        A2aServerProcess b = instance("b");
        JsonNode before = send(a.url(), "HELLO before the crash", null, true);
        assertEquals("completed", before.path("result").path("status").path("state").asText(), before.toString());
        String context = before.path("result").path("contextId").asText();
        JsonNode inFlight = send(a.url(), "SLOW in flight", context, false);
        String inFlightTask = inFlight.path("result").path("id").asText();
        assertFalse(inFlightTask.isEmpty(), inFlight.toString());
        assertTrue(waitFor(() -> !requestsFor("SLOW in flight").isEmpty()), "the turn on A reached the model");

        a.process().destroyForcibly(); // SIGKILL: bin/agent execs the JVM
        assertTrue(a.process().waitFor(30, TimeUnit.SECONDS));

        JsonNode after = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) { // until the database has noticed A's connections are gone
            after = send(b.url(), "HELLO after the crash", context, true);
            if (!after.path("error").path("message").asText().contains("busy")) break;
            Thread.sleep(200);
        }
        assertNotNull(after);
        assertEquals("completed", after.path("result").path("status").path("state").asText(), after.toString());
        assertEquals(context, after.path("result").path("contextId").asText());
        String history = requestsFor("HELLO after the crash").getLast().messages().toString();
        assertTrue(history.contains("HELLO before the crash") && history.contains("Hello from the agent"),
                "the completed messages are there: " + history);
        assertTrue(history.contains("SLOW in flight"), "the prompt of the turn in flight was saved as it started: " + history);
        assertFalse(history.contains("partial"), "only the answer in flight is lost: " + history);

        // ListTasks on B (before anything reads the task) reports it failed too, not working forever
        String listedState = null;
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode listed = v1(b.url(), "ListTasks", Json.object().put("contextId", context), null).path("result");
            for (JsonNode t : listed.path("tasks")) if (t.path("id").asText().equals(inFlightTask)) listedState = t.path("status").path("state").asText();
            if ("TASK_STATE_FAILED".equals(listedState)) break;
            Thread.sleep(200);
        }
        assertEquals("TASK_STATE_FAILED", listedState, "the task A left, as B lists it");

        JsonNode orphan = null;
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            orphan = rpc(b.url(), "tasks/get", Json.object().put("id", inFlightTask));
            if ("failed".equals(orphan.path("result").path("status").path("state").asText())) break;
            Thread.sleep(200);
        }
        assertNotNull(orphan);
        assertEquals("failed", orphan.path("result").path("status").path("state").asText(),
                "the task A left is reported failed, not working forever: " + orphan);
        assertTrue(orphan.toString().contains("stopped before it ended"), orphan.toString());
    }

    @Test
    void listTasksShowsTheCallersTasksOfEveryInstanceEndedOnesTooFilteredAndPaged() throws Exception {
        A2aServerProcess a = instance("a");
        A2aServerProcess b = instance("b");
        JsonNode first = v1(a.url(), "SendMessage", v1Send("HELLO first, on A", null, false), null).path("result").path("task");
        String ctxA = first.path("contextId").asText();
        JsonNode second = v1(a.url(), "SendMessage", v1Send("HELLO second, on A", ctxA, false), null).path("result").path("task");
        JsonNode third = v1(b.url(), "SendMessage", v1Send("HELLO third, on B", null, false), null).path("result").path("task");
        JsonNode slow = v1(b.url(), "SendMessage", v1Send("SLOW fourth, on B", null, true), null).path("result").path("task");
        for (JsonNode t : List.of(first, second, third)) assertEquals("TASK_STATE_COMPLETED", t.path("status").path("state").asText(), t.toString());
        assertTrue(waitFor(() -> !requestsFor("SLOW fourth").isEmpty()), "the slow task on B is working");
        List<String> all = List.of(first.path("id").asText(), second.path("id").asText(), third.path("id").asText(), slow.path("id").asText());

        // each instance lists all four: the other's, and those that ended (an instance forgets its ended tasks)
        for (A2aServerProcess s : List.of(a, b)) {
            JsonNode listed = v1(s.url(), "ListTasks", Json.object(), null).path("result");
            assertEquals(new java.util.HashSet<>(all), ids(listed), "listed on " + s.url() + ": " + listed);
            assertEquals(4, listed.path("totalSize").asInt(), listed.toString());
        }
        JsonNode inCtx = v1(b.url(), "ListTasks", Json.object().put("contextId", ctxA), null).path("result");
        assertEquals(java.util.Set.of(all.get(0), all.get(1)), ids(inCtx), "A's context, listed on B: " + inCtx);
        JsonNode ended = v1(b.url(), "ListTasks", Json.object().put("status", "TASK_STATE_COMPLETED"), null).path("result");
        assertEquals(java.util.Set.of(all.get(0), all.get(1), all.get(2)), ids(ended), ended.toString());
        JsonNode working = v1(a.url(), "ListTasks", Json.object().put("status", "TASK_STATE_WORKING"), null).path("result");
        assertEquals(java.util.Set.of(all.get(3)), ids(working), "B's working task, listed on A: " + working);
        String firstAt = first.path("status").path("timestamp").asText();
        JsonNode later = v1(a.url(), "ListTasks", Json.object().put("statusTimestampAfter", firstAt), null).path("result");
        assertFalse(ids(later).contains(all.get(0)), "only what changed after " + firstAt + ": " + later);
        assertTrue(ids(later).containsAll(List.of(all.get(2), all.get(3))), later.toString());

        // one page at a time, alternating instances: every task once
        List<String> paged = new ArrayList<>();
        String token = "";
        for (int page = 0; page < 6; page++) {
            String url = (page % 2 == 0 ? a : b).url();
            JsonNode p = v1(url, "ListTasks", Json.object().put("pageSize", 1).put("pageToken", token), null).path("result");
            assertEquals(4, p.path("totalSize").asInt(), p.toString());
            assertEquals(1, p.path("pageSize").asInt(), p.toString());
            p.path("tasks").forEach(t -> paged.add(t.path("id").asText()));
            token = p.path("nextPageToken").asText();
            if (token.isEmpty()) break;
        }
        assertEquals(4, paged.size(), "every task once over the pages: " + paged);
        assertEquals(new java.util.HashSet<>(all), new java.util.HashSet<>(paged));

        // HTTP+JSON reads the same list
        HttpResponse<String> rest = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(b.url() + "/tasks?contextId=" + ctxA))
                .header("A2A-Version", "1.0").timeout(Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, rest.statusCode(), rest.body());
        JsonNode restList = Json.mapper().readTree(rest.body());
        A2aV1Schema.assertMessage("ListTasksResponse", restList, "GET /tasks");
        assertEquals(java.util.Set.of(all.get(0), all.get(1)), ids(restList), restList.toString());

        // still only the caller's own: an instance on the same database whose callers bring a token lists none of them
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir.resolve("c"));
        env.put("AGENT_STORE", db.display());
        env.put("A2A_TOKEN", "list-token-c-4a1e");
        A2aServerProcess c = A2aServerProcess.start(env, ws, "--cwd", ws.toString(), "--token-env", "A2A_TOKEN");
        servers.add(c);
        JsonNode others = v1(c.url(), "ListTasks", Json.object(), "list-token-c-4a1e").path("result");
        assertEquals(java.util.Set.of(), ids(others), "another caller's tasks are not listed: " + others);
        assertEquals(0, others.path("totalSize").asInt(), others.toString());
    }

    private static java.util.Set<String> ids(JsonNode list) {
        java.util.Set<String> ids = new java.util.HashSet<>();
        list.path("tasks").forEach(t -> ids.add(t.path("id").asText()));
        return ids;
    }

    private static ObjectNode v1Send(String text, String contextId, boolean returnImmediately) {
        ObjectNode message = Json.object().put("messageId", UUID.randomUUID().toString()).put("role", "ROLE_USER");
        message.putArray("parts").addObject().put("text", text);
        if (contextId != null) message.put("contextId", contextId);
        ObjectNode params = Json.object();
        params.set("message", message);
        if (returnImmediately) params.putObject("configuration").put("returnImmediately", true);
        return params;
    }

    /** A 1.0 JSON-RPC call ({@code A2A-Version: 1.0}); the answer is checked against the pinned 1.0 schema. */
    private static JsonNode v1(String url, String method, ObjectNode params, String token) throws Exception {
        ObjectNode rq = Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", method);
        rq.set("params", params);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "/")).header("Content-Type", "application/json")
                .header("A2A-Version", "1.0").timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(rq.toString()));
        if (token != null) b.header("Authorization", "Bearer " + token);
        JsonNode r = Json.mapper().readTree(HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString()).body());
        A2aV1Schema.assertRpcResponse(method, r);
        return r;
    }

    private static boolean waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) return true;
            Thread.sleep(50);
        }
        return condition.getAsBoolean();
    }

    private static JsonNode send(String url, String text, String contextId, boolean blocking) throws Exception {
        ObjectNode message = Json.object().put("kind", "message").put("messageId", UUID.randomUUID().toString()).put("role", "user");
        message.putArray("parts").addObject().put("kind", "text").put("text", text);
        if (contextId != null) message.put("contextId", contextId);
        ObjectNode params = Json.object();
        params.set("message", message);
        params.putObject("configuration").put("blocking", blocking);
        return rpc(url, "message/send", params);
    }

    private static JsonNode rpc(String url, String method, ObjectNode params) throws Exception {
        ObjectNode rq = Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", method);
        rq.set("params", params);
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url + "/"))
                        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
                        .POST(HttpRequest.BodyPublishers.ofString(rq.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        return Json.mapper().readTree(r.body());
    }
}
