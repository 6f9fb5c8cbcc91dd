package cn.agentao.agent.door.agora;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
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
import java.util.concurrent.atomic.AtomicReference;

import static cn.agentao.agent.door.agora.AgoraTestServer.data;
import static cn.agentao.agent.door.agora.AgoraTestServer.published;
import static cn.agentao.agent.testing.FakeModelServer.lastUserMessageContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** From an editor session: agora_publish (asked about) and agora_read, when config.json has an agora entry. */
class AgoraToolsIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir Path tmp;
    private FakeModelServer model;
    private AgoraTestServer server;
    private AgentProcess agent;
    private String sessionId;
    private final AtomicReference<String> answer = new AtomicReference<>("allow_once");

    @BeforeEach
    void setUp() throws Exception {
        model = FakeModelServer.start();
        server = AgoraTestServer.start("general").requireToken("agora-tok-123");
        Path config = Files.createDirectories(tmp.resolve("config/agent"));
        Files.writeString(config.resolve("config.json"), """
                {"agora": {"url": "%s", "agentId": "editor-bot", "tokenEnv": "AGORA_TOKEN"}}
                """.formatted(server.url()));
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
        env.put("AGENT_SESSIONS_DIR", tmp.resolve("store").toString());
        env.put("AGORA_TOKEN", "agora-tok-123");
        agent = AgentProcess.start(env, "--acp");
        agent.onClientRequest("session/request_permission", p -> {
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", answer.get());
            return r;
        });
        agent.call("initialize", Json.object().put("protocolVersion", 1));
        ObjectNode session = Json.object().put("cwd", Files.createDirectories(tmp.resolve("ws")).toString());
        session.putArray("mcpServers");
        sessionId = agent.call("session/new", session).path("result").path("sessionId").asText();
    }

    @AfterEach
    void tearDown() {
        try {
            assertEquals(List.of(), agent.violations(), "stdout holds only JSON-RPC");
            assertFalse(agent.stdoutLines().stream().anyMatch(l -> l.contains("agora-tok-123")), "the token never reaches the editor");
        } finally {
            agent.close();
            server.close();
            model.close();
        }
    }

    private void prompt(String text) throws InterruptedException {
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        agent.call("session/prompt", p, WAIT);
    }

    @Test
    void publishingIsAskedAboutAndSaidInTheSpaceOnlyWhenAllowed() throws Exception {
        model.when(lastUserMessageContains("refuse this")).reply(Script.reply()
                .toolCall("c1", "agora_publish", "{\"space\":\"general\",\"text\":\"should never appear\"}"));
        model.when(lastUserMessageContains("tell them")).reply(Script.reply()
                .toolCall("c2", "agora_publish", "{\"space\":\"general\",\"text\":\"hello from the editor\"}"));
        model.whenEmpty(Script.textReply("ok"));

        answer.set("reject_once");
        prompt("refuse this");
        answer.set("allow_once");
        prompt("tell them");
        var said = server.await(published("general"), WAIT);
        assertEquals("editor-bot", said.agentId());
        assertEquals("hello from the editor", data(said).path("text").asText());
        assertTrue(server.received().stream().noneMatch(r -> r.message().toString().contains("should never appear")),
                "the rejected publish was not sent");
    }

    @Test
    void readingShowsWhatWasSaidSinceJoiningMarkedUntrusted() throws Exception {
        model.when(lastUserMessageContains("join")).reply(Script.reply().toolCall("r1", "agora_read", "{\"space\":\"general\"}"));
        model.whenEmpty(Script.textReply("ok"));
        prompt("join the space");
        server.awaitMember("general", "editor-bot", WAIT);
        server.say("general", "alice", "the build is green");
        // the message reaches the agent on its own connection; read until it shows (a read never waits)
        long end = System.nanoTime() + WAIT.toNanos();
        String toolResult = "";
        while (!toolResult.contains("alice: the build is green")) {
            if (System.nanoTime() > end) throw new AssertionError("agora_read never showed the message: " + toolResult);
            model.when(lastUserMessageContains("what did they say")).reply(Script.reply().toolCall("r2", "agora_read", "{\"space\":\"general\"}"));
            prompt("what did they say?");
            toolResult = model.lastRequest().rawBody();
        }
        assertTrue(toolResult.contains("untrusted"), toolResult);
    }
}
