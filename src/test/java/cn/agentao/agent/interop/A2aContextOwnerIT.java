package cn.agentao.agent.interop;

import cn.agentao.agent.door.a2a.A2aServerProcess;
import cn.agentao.agent.interop.A2aTaskOwnerIT.Caller;
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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A context is its caller's (issue #27): two {@code agent a2a serve} processes on one real PostgreSQL database, each
 * with its own token. The second party, knowing the first's {@code contextId}, sends new messages naming it over the
 * 0.3 wire, 1.0 JSON-RPC and 1.0 HTTP+JSON: each is answered as a message in an unused context would be (same
 * {@code contextId} back, a task of its own), and the model never sees the first party's conversation; ListTasks of
 * that context shows it only its own tasks. The first party still continues its conversation, also from a restarted
 * instance, which reads the context's history back from the database.
 */
class A2aContextOwnerIT {
    static final String TOKEN_A = "context-token-a-7d21e0";
    static final String TOKEN_B = "context-token-b-03c9f4";
    static final String SECRET = "SECRET-A-4471";

    @TempDir
    Path dir;
    FakeModelServer model;
    PostgresStoreConfig db;
    Path ws;
    final List<A2aServerProcess> servers = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        db = PostgresServer.shared().freshDatabase();
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
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
    void anotherCredentialCannotContinueOrReadTheContext() throws Exception {
        A2aServerProcess a = instance("a", TOKEN_A);
        A2aServerProcess b = instance("b", TOKEN_B);
        Caller first = new Caller(a.url(), TOKEN_A);
        Caller second = new Caller(b.url(), TOKEN_B);

        JsonNode started = first.v03("message/send", A2aTaskOwnerIT.sendParams("HELLO, the code is " + SECRET, null));
        assertEquals("completed", started.path("result").path("status").path("state").asText(), started.toString());
        String contextId = started.path("result").path("contextId").asText();
        String firstTask = started.path("result").path("id").asText();

        // the second caller names the first's context on each wire: answered as in a context of its own
        Set<String> secondTasks = new HashSet<>();
        JsonNode v03 = modelSees(false, () -> second.v03("message/send",
                inContext(A2aTaskOwnerIT.sendParams("HELLO over 0.3, what is the code?", null), contextId))).path("result");
        assertEquals("completed", v03.path("status").path("state").asText(), v03.toString());
        assertEquals(contextId, v03.path("contextId").asText(), "answered as for an unused context id: the same id back");
        secondTasks.add(v03.path("id").asText());

        JsonNode v1 = modelSees(false, () -> second.v1("SendMessage",
                inContext(A2aTaskOwnerIT.v1SendParams("HELLO over 1.0, what is the code?", null), contextId), false))
                .path("result").path("task");
        assertEquals("TASK_STATE_COMPLETED", v1.path("status").path("state").asText(), v1.toString());
        assertEquals(contextId, v1.path("contextId").asText());
        secondTasks.add(v1.path("id").asText());

        JsonNode rest = modelSees(false, () -> {
            Caller.Rest r = second.rest("POST", "/message:send",
                    inContext(A2aTaskOwnerIT.v1SendParams("HELLO over REST, what is the code?", null), contextId));
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
                inContext(A2aTaskOwnerIT.sendParams("HELLO again, repeat the code", null), contextId)));
        assertEquals(0, a.terminate(), a.stderr());
        Caller firstAgain = new Caller(instance("a2", TOKEN_A).url(), TOKEN_A);
        JsonNode resumed = modelSees(true, () -> firstAgain.v1("SendMessage",
                inContext(A2aTaskOwnerIT.v1SendParams("HELLO after the restart, repeat the code", null), contextId), false));
        assertEquals(contextId, resumed.path("result").path("task").path("contextId").asText(), resumed.toString());
        modelSees(false, () -> second.v03("message/send",
                inContext(A2aTaskOwnerIT.sendParams("HELLO once more, what is the code?", null), contextId)));
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
}
