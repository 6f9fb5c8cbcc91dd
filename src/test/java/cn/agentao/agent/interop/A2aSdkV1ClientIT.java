package cn.agentao.agent.interop;

import cn.agentao.agent.door.a2a.A2aServerProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The official A2A JS SDK (@a2a-js/sdk 1.3) in its native 1.0 mode against {@code agent a2a serve}
 * (interop/a2a/sdk-v1-client.mjs), once over each 1.0 binding the card names: JSON-RPC and HTTP+JSON (REST). Send,
 * stream, get, list (filters, paging), subscribe, cancel, the errors the SDK names, push configs, the extended card,
 * the permission question; then plain HTTP for the binding's error shapes and the door's checks (415, 401, the
 * version rule). The refused write did not happen.
 */
class A2aSdkV1ClientIT {
    static final String TOKEN = "a2a-v1-token-93c1";

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
        model.when(FakeModelServer.lastUserMessageContains("WRITE-OUTSIDE please")).reply(Script.reply().toolCall("c1", "write_file",
                Json.object().put("path", outside.resolve("no.txt").toString()).put("content", "x").toString()), Script.textReply("done"));
    }

    @AfterEach
    void stop() {
        model.close();
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
            var command = withToken ? Interop.node("a2a/sdk-v1-client.mjs", "--url", server.url(), "--binding", binding, "--token", TOKEN)
                    : Interop.node("a2a/sdk-v1-client.mjs", "--url", server.url(), "--binding", binding);
            Interop.Result r = Interop.run(command, Map.of(), ws, Duration.ofSeconds(120));
            JsonNode summary = Json.mapper().readTree(r.stdout().isBlank() ? "{}" : r.stdout());
            String context = "driver output:\n" + r.stdout() + "\n" + Interop.tail(r.stderr()) + "\nserver:\n" + Interop.tail(server.stderr());
            assertTrue(summary.path("failures").isArray() && summary.path("failures").isEmpty(), context);
            assertEquals(0, r.exitCode(), context);
            assertTrue(summary.path("checks").asInt() > 30, context);
            assertFalse(Files.exists(outside.resolve("no.txt")), "answered no: nothing written");
            assertFalse(server.stderr().contains(TOKEN), "the token is not logged");
        }
    }
}
