package cn.agentao.agent.model;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.AgentRun;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A model stream that is cut, garbled or flooded, as the user meets it: through {@code agent -p} and over ACP, with
 * the scripted model server answering.
 */
class StreamFaultsIT {
    @TempDir
    Path dir;
    Path ws;
    FakeModelServer model;
    Map<String, String> env;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        ws = Files.createDirectories(dir.resolve("ws"));
        env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
    }

    @AfterEach
    void stop() {
        model.close();
    }

    private AgentRun.Result print(String prompt) throws Exception {
        AgentRun.Result r = AgentRun.start(ws, env, null, "-p", prompt).await(Duration.ofSeconds(120));
        assertFalse(r.stderr().contains("Exception") || r.stderr().contains("\tat "), "no stack trace: " + r.stderr());
        return r;
    }

    private static void assertNoParserWords(String message) {
        for (String internal : List.of("Unexpected character", "Unrecognized token", "JsonParse", "jackson", "line: 1, column"))
            assertFalse(message.contains(internal), "no parser internals: " + message);
    }

    @Test
    void anOpenAiStreamEndingWithoutDoneOrFinishReasonIsACutAnswer() throws Exception {
        model.enqueue(Script.reply().text("The first half of the ", "answer").truncate());
        AgentRun.Result r = print("explain");
        assertEquals(1, r.exit(), "a cut answer is a failed turn: " + r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("The first half of the answer"), "the part that came is kept: " + r.stdout());
        assertTrue(r.stderr().contains("cut off"), "the user is told: " + r.stderr());
        assertEquals(1, model.requests().size(), "what was shown is not asked for again");
    }

    @Test
    void anOpenAiStreamWithAFinishReasonButNoDoneIsComplete() throws Exception {
        model.enqueue(Script.reply().raw("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"All of it.\"}}]}\n\n"
                + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n").truncate());
        AgentRun.Result r = print("explain");
        assertEquals(0, r.exit(), r.stderr());
        assertEquals("All of it.\n", r.stdout());
    }

    @Test
    void anAnthropicStreamEndingWithoutMessageStopIsACutAnswer() throws Exception {
        env = new HashMap<>(env);
        env.putAll(model.anthropicEnvironment());
        model.enqueue(Script.reply().text("Bonjour, je ").truncate());
        AgentRun.Result r = print("salut");
        assertEquals(1, r.exit(), r.stdout() + r.stderr());
        assertTrue(r.stdout().contains("Bonjour, je"), r.stdout());
        assertTrue(r.stderr().contains("cut off"), r.stderr());
        assertEquals(1, model.requests().size());
    }

    @Test
    void overAcpACutAnswerFailsThePromptAndIsSavedMarked() throws Exception {
        String id;
        try (AgentProcess agent = AgentProcess.start(env, "--acp")) {
            agent.call("initialize", Json.object().put("protocolVersion", 1).set("clientCapabilities", Json.object()));
            JsonNode created = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()));
            id = created.path("result").path("sessionId").asText();
            model.enqueue(Script.reply().text("Step one, ", "step two").truncate());
            JsonNode answer = agent.call("session/prompt", AgentProcess.prompt(id, "plan it"), Duration.ofSeconds(60));
            assertTrue(answer.has("error"), "not end_turn, which says the turn ended successfully: " + answer);
            assertTrue(answer.path("error").path("message").asText().contains("cut off"), answer.toString());
            assertTrue(answer.path("error").path("data").path("answerCut").asBoolean(), answer.toString());
            String streamed = agent.agentText(id);
            assertTrue(streamed.startsWith("Step one, step two"), streamed);
            assertTrue(streamed.contains("cut off"), "marked where the user reads it: " + streamed);
        }
        // the saved conversation shows the part that came, marked
        try (AgentProcess again = AgentProcess.start(env, "--acp")) {
            again.call("initialize", Json.object().put("protocolVersion", 1).set("clientCapabilities", Json.object()));
            JsonNode loaded = again.call("session/load", Json.object().put("sessionId", id).put("cwd", ws.toString())
                    .set("mcpServers", Json.mapper().createArrayNode()), Duration.ofSeconds(30));
            assertTrue(loaded.has("result"), loaded.toString());
            String replayed = again.agentText(id);
            assertTrue(replayed.contains("Step one, step two") && replayed.contains("cut off"), replayed);
        }
    }

    @Test
    void garbageInTheStreamIsNamedNotRetriedAndShowsNoParserInternals() throws Exception {
        model.enqueue(Script.reply().raw("data: nope, this is not JSON \u001b[31mred\n\n"));
        AgentRun.Result r = print("hi");
        assertEquals(1, r.exit(), r.stdout() + r.stderr());
        assertTrue(r.stderr().contains("not a valid event stream"), r.stderr());
        assertTrue(r.stderr().contains("data: nope, this is not JSON ?[31mred"), "the line's start, inert: " + r.stderr());
        assertFalse(r.stderr().contains("\u001b"), "no escape sequence reaches the terminal");
        assertNoParserWords(r.stderr());
        assertEquals(1, model.requests().size(), "a stream that cannot be read is not asked for again");
    }

    @Test
    void garbageAfterPartOfTheAnswerCutsItWithTheSameWords() throws Exception {
        model.enqueue(Script.reply().text("So far ").raw("data: {\"choices\": [oops\n\n"));
        AgentRun.Result r = print("hi");
        assertEquals(1, r.exit(), r.stdout() + r.stderr());
        assertTrue(r.stdout().startsWith("So far"), r.stdout());
        assertTrue(r.stderr().contains("cut off") && r.stderr().contains("not a valid event stream"), r.stderr());
        assertNoParserWords(r.stderr());
    }

    @Test
    void oneHugeChunkUnderTheLimitIsShownWhole() throws Exception {
        String big = "x".repeat(12 * 1024 * 1024);
        model.enqueue(Script.reply().text(big, "!"));
        AgentRun.Result r = print("flood me");
        assertEquals(0, r.exit(), r.stderr());
        assertEquals(big.length() + 2, r.stdout().length());
        assertTrue(r.stdout().endsWith("x!\n"));
    }

    @Test
    void oneChunkPastTheLimitIsRefusedWithAMessageThatSaysSo() throws Exception {
        model.enqueue(Script.reply().text("x".repeat(20 * 1024 * 1024)));
        AgentRun.Result r = print("flood me");
        assertEquals(1, r.exit(), r.stderr());
        assertTrue(r.stderr().contains("more than 16 MiB"), r.stderr());
        assertEquals("", r.stdout().strip());
        assertEquals(1, model.requests().size(), "refused, not retried");
    }

    @Test
    void theIdleTimeoutIsTheProvidersOwn() throws Exception {
        Path config = Files.createDirectories(dir.resolve("config/agent"));
        Files.writeString(config.resolve("config.json"), "{\"providers\": {\"openai\": {\"idleTimeoutSeconds\": 1}}}");
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        model.enqueue(Script.reply().hang()); // keep-alive comments only, which are not output
        AgentRun.Result r = print("anyone there?");
        assertEquals(1, r.exit(), r.stdout() + r.stderr());
        assertTrue(r.stderr().contains("sent nothing for 1 s"), r.stderr());
    }


}
