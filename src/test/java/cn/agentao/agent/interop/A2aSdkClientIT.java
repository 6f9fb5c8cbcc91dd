package cn.agentao.agent.interop;

import cn.agentao.agent.door.a2a.A2aServerProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.store.SessionStore;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The official A2A JS SDK (@a2a-js/sdk 1.3 through its v0.3 layer) and plain HTTP against {@code agent a2a serve}
 * (interop/a2a/sdk-client.mjs): card, 401, send, stream, get, resubscribe, cancel, push configs, errors, and the
 * permission question round trip; every response and event validated against the A2A 0.3 JSON schema. Then the
 * side effects: the refused write did not happen, the allowed one did, the context is a stored session, and
 * SIGTERM stops the server cleanly. Then the same SDK in its native 1.0 mode (interop/a2a/sdk-v1-client.mjs), once
 * over each 1.0 binding the card names, JSON-RPC and HTTP+JSON (REST): send, stream, get, list (filters, paging),
 * subscribe, cancel, the errors the SDK names, push configs, the extended card, the permission question; then plain
 * HTTP for the binding's error shapes and the door's checks (415, 401, the version rule).
 */
class A2aSdkClientIT {
    static final String TOKEN = "a2a-test-token-5bd1";

    @TempDir
    Path dir;
    FakeModelServer model;
    Path ws;
    Path outside;

    @BeforeEach
    void start() throws Exception {
        Interop.ensureInstalled();
        model = FakeModelServer.start();
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        outside = Files.createDirectories(dir.resolve("outside")).toRealPath();
        model.when(FakeModelServer.lastUserMessageContains("HELLO")).replyAlways(Script.reply().text("Hello ", "from ", "the agent"));
        model.when(FakeModelServer.lastUserMessageContains("SLOW")).replyAlways(Script.reply().text("partial ").hang());
        model.when(FakeModelServer.lastUserMessageContains("WRITE-OUTSIDE-YES")).reply(
                Script.reply().toolCall("c2", "write_file", writeArgs(outside.resolve("yes.txt"))), Script.textReply("done"));
        model.when(FakeModelServer.lastUserMessageContains("WRITE-OUTSIDE please")).reply(
                Script.reply().toolCall("c1", "write_file", writeArgs(outside.resolve("no.txt"))), Script.textReply("done"));
        model.when(FakeModelServer.lastUserMessageContains("ASK-USER")).reply(
                Script.reply().toolCall("u1", "ask_user", ASK_USER_ARGS), Script.textReply("thanks"));
    }

    static final String ASK_USER_ARGS = "{\"question\":\"Which colour?\",\"options\":[\"red\",\"blue\"]}";

    private static String writeArgs(Path path) {
        return Json.object().put("path", path.toString()).put("content", "written by the agent").toString();
    }

    @AfterEach
    void stop() {
        model.close();
    }

    @Test
    void sdkClientAgainstTheServer() throws Exception {
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir);
        env.put("A2A_TOKEN", TOKEN);
        try (A2aServerProcess server = A2aServerProcess.start(env, ws, "--cwd", ws.toString(), "--token-env", "A2A_TOKEN")) {
            String url = server.url();
            Interop.Result r = Interop.run(Interop.node("a2a/sdk-client.mjs", "--url", url, "--token", TOKEN, "--answer", "no"),
                    Map.of(), ws, Duration.ofSeconds(120));
            JsonNode summary = Json.mapper().readTree(r.stdout().isBlank() ? "{}" : r.stdout());
            String context = "driver output:\n" + r.stdout() + "\n" + Interop.tail(r.stderr()) + "\nserver:\n" + Interop.tail(server.stderr());
            assertTrue(summary.path("failures").isArray() && summary.path("failures").isEmpty(), context);
            assertEquals(0, r.exitCode(), context);
            assertTrue(summary.path("checks").asInt() > 40, context);

            assertFalse(Files.exists(outside.resolve("no.txt")), "answered no: nothing written");
            assertEquals("written by the agent", Files.readString(outside.resolve("yes.txt")), "answered yes: written");
            String contextId = summary.path("contextId").asText();
            assertFalse(contextId.isEmpty());
            String session = A2aServerProcess.sessionOf(TOKEN, contextId); // the token's own context
            try (var files = Files.list(dir.resolve("store"))) {
                assertTrue(files.anyMatch(p -> p.getFileName().toString().startsWith(session)), "the context is a stored session");
            }
            boolean answerReachedTheModel = model.requests().stream().anyMatch(q -> q.body().path("messages").toString().contains("green"));
            assertTrue(answerReachedTheModel, "the caller's answer to ask_user reached the model");
            assertFalse(server.stderr().contains(TOKEN), "the token is not logged");
            assertFalse(server.stderr().contains(FakeModelServer.API_KEY), "the provider key is not logged");
            assertEquals(0, server.terminate(), "SIGTERM: a clean exit\n" + server.stderr());
        }
    }

    @Test
    void theSdkOverHttpJsonWithAToken() throws Exception {
        drive("HTTP+JSON", true);
    }

    @Test
    void theSdkOverHttpJsonWithoutAToken() throws Exception {
        drive("HTTP+JSON", false);
    }

    @Test
    void theSdkOverJsonRpcWithAToken() throws Exception {
        drive("JSONRPC", true);
    }

    private void drive(String binding, boolean withToken) throws Exception {
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir);
        env.put("A2A_TOKEN", TOKEN);
        String[] serverArgs = withToken ? new String[] {"--cwd", ws.toString(), "--token-env", "A2A_TOKEN"} : new String[] {"--cwd", ws.toString()};
        try (A2aServerProcess server = A2aServerProcess.start(env, ws, serverArgs)) {
            // a 0.3 client starts a task that asks; the 1.0 SDK reads it and answers it
            String token = withToken ? TOKEN : null;
            JsonNode asked = send(server.url() + "/", "WRITE-OUTSIDE-YES", null, token).path("result");
            assertEquals("input-required", asked.path("status").path("state").asText(), asked.toString());
            List<String> command = new java.util.ArrayList<>(Interop.node("a2a/sdk-v1-client.mjs", "--url", server.url(), "--binding", binding,
                    "--task03", asked.path("id").asText()));
            if (withToken) command.addAll(List.of("--token", TOKEN));
            Interop.Result r = Interop.run(command, Map.of(), ws, Duration.ofSeconds(120));
            JsonNode summary = Json.mapper().readTree(r.stdout().isBlank() ? "{}" : r.stdout());
            String context = "driver output:\n" + r.stdout() + "\n" + Interop.tail(r.stderr()) + "\nserver:\n" + Interop.tail(server.stderr());
            assertTrue(summary.path("failures").isArray() && summary.path("failures").isEmpty(), context);
            assertEquals(0, r.exitCode(), context);
            assertTrue(summary.path("checks").asInt() > 30, context);
            assertFalse(Files.exists(outside.resolve("no.txt")), "answered no: nothing written");
            assertEquals("written by the agent", Files.readString(outside.resolve("yes.txt")), "the 1.0 answer yes to the 0.3 task: written");
            assertFalse(server.stderr().contains(TOKEN), "the token is not logged");
        }
    }

    @Test
    void anIdleContextIsClosedThenReopenedWithItsHistory() throws Exception {
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir);
        try (A2aServerProcess server = A2aServerProcess.start(env, ws, "--cwd", ws.toString(), "--idle-close", "1")) {
            String url = server.url() + "/";
            JsonNode first = send(url, "HELLO first words", null);
            assertEquals("completed", first.path("result").path("status").path("state").asText(), first.toString());
            String contextId = first.path("result").path("contextId").asText();
            SessionStore store = new SessionStore(dir.resolve("store"));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (store.isLive(contextId) && System.nanoTime() < deadline) Thread.sleep(100);
            assertFalse(store.isLive(contextId), "the idle context's session was closed (free for an editor to open)");
            JsonNode second = send(url, "HELLO again", contextId);
            assertEquals("completed", second.path("result").path("status").path("state").asText(), second.toString());
            assertEquals(contextId, second.path("result").path("contextId").asText());
            assertTrue(model.lastRequest().body().path("messages").toString().contains("HELLO first words"),
                    "the reopened context kept its history");
        }
    }

    private static JsonNode send(String url, String text, String contextId) throws Exception {
        return send(url, text, contextId, null);
    }

    /** A 0.3 {@code message/send} (blocking), with the bearer token when given. */
    private static JsonNode send(String url, String text, String contextId, String token) throws Exception {
        ObjectNode message = Json.object().put("kind", "message").put("messageId", java.util.UUID.randomUUID().toString()).put("role", "user");
        message.putArray("parts").addObject().put("kind", "text").put("text", text);
        if (contextId != null) message.put("contextId", contextId);
        ObjectNode rq = Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", "message/send");
        rq.putObject("params").set("message", message);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json");
        if (token != null) b.header("Authorization", "Bearer " + token);
        HttpResponse<String> r = HttpClient.newHttpClient().send(b.POST(HttpRequest.BodyPublishers.ofString(rq.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        return Json.mapper().readTree(r.body());
    }

    @Test
    void theServersTokenVariableNeverReachesACommandWhateverItsName() throws Exception {
        String word = "door-word-" + java.util.UUID.randomUUID();
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir);
        env.put("DOOR_WORD", word); // an ordinary name: only --token-env says it is a credential
        model.when(FakeModelServer.lastUserMessageContains("SHOW-ENV")).reply(Script.reply().toolCall("e1", "run_shell_command",
                Json.object().put("command", "env > child-env.txt; echo ran >> child-env.txt").toString()), Script.textReply("done"));
        try (A2aServerProcess server = A2aServerProcess.start(env, ws, "--cwd", ws.toString(), "--token-env", "DOOR_WORD",
                "--mode", "full-access")) {
            String url = server.url() + "/";
            ObjectNode message = Json.object().put("kind", "message").put("messageId", "m1").put("role", "user");
            message.putArray("parts").addObject().put("kind", "text").put("text", "SHOW-ENV please");
            ObjectNode rq = Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", "message/send");
            rq.putObject("params").set("message", message);
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                            .header("Content-Type", "application/json").header("Authorization", "Bearer " + word)
                            .POST(HttpRequest.BodyPublishers.ofString(rq.toString())).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("completed", Json.mapper().readTree(r.body()).path("result").path("status").path("state").asText(), r.body());
            String childEnv = Files.readString(ws.resolve("child-env.txt"));
            assertTrue(childEnv.contains("ran"), "the command ran: " + childEnv);
            assertFalse(childEnv.contains("DOOR_WORD") || childEnv.contains(word), "the token is not in the command's environment");
            assertTrue(model.requests().stream().noneMatch(q -> q.rawBody().contains(word)), "nor sent to the model");
        }
    }

    @Test
    void refusesToServeBeyondLoopbackWithoutAToken() throws Exception {
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir);
        A2aServerProcess server = A2aServerProcess.start(env, ws, "--host", "0.0.0.0");
        assertTrue(server.process().waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(2, server.process().exitValue());
        Thread.sleep(200); // the reader thread may still be appending the last line
        String err = server.stderr();
        assertTrue(err.contains("without a token") && err.contains("--token-env"), err);
        assertFalse(err.contains("listening on") || err.contains("\tat "), err);
    }
}
