package cn.agentao.agent.door.acp;

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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Through ACP, as a process: the model starts the read-only investigator with {@code task}; the child reads a file and
 * answers; the editor sees the child as one tool call whose content streams its steps and ends with its answer; the
 * parent's model gets the answer; the task call comes back when the session is loaded in a new process.
 */
class AcpSubagentsIT {
    @TempDir
    Path dir;
    FakeModelServer model;

    @BeforeEach
    void start() {
        model = FakeModelServer.start().whenEmptyFail();
    }

    @AfterEach
    void stop() {
        model.close();
    }

    private AgentProcess agent() throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        AgentProcess agent = AgentProcess.start(env, "--acp");
        assertTrue(agent.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        return agent;
    }

    private static String text(JsonNode update) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode c : update.path("content")) sb.append(c.path("content").path("text").asText());
        return sb.toString();
    }

    @Test
    void theChildIsOneToolCallStreamingItsStepsAndItsAnswerReachesTheParent() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.writeString(ws.resolve("notes.txt"), "the launch code is alpha-beta-gamma-42\n");
        model.when(r -> r.body().path("messages").get(0).path("content").asText().contains("# Subagent: codebase-investigator")).reply(
                Script.reply().toolCall("r1", "read_file", "{\"path\":\"notes.txt\"}"),
                Script.textReply("The code in notes.txt is alpha-beta-gamma-42."));
        model.enqueue(Script.reply().toolCall("t1", "task",
                "{\"agent\":\"codebase-investigator\",\"description\":\"find the launch code\",\"prompt\":\"What is the launch code in notes.txt?\"}"),
                Script.textReply("It is alpha-beta-gamma-42."));
        String id;
        try (AgentProcess agent = agent()) {
            id = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                    .path("result").path("sessionId").asText();
            JsonNode answer = agent.call("session/prompt", AgentProcess.prompt(id, "Find the launch code"), Duration.ofSeconds(60));
            assertEquals("end_turn", answer.path("result").path("stopReason").asText(), answer.toString());

            List<JsonNode> task = agent.updates(id).stream().filter(u -> "t1".equals(u.path("toolCallId").asText())).toList();
            assertEquals("tool_call", task.getFirst().path("sessionUpdate").asText());
            assertEquals("Agent codebase-investigator: find the launch code", task.getFirst().path("title").asText());
            assertTrue(task.stream().anyMatch(u -> "in_progress".equals(u.path("status").asText()) && text(u).contains("→ Read notes.txt")),
                    "the child's steps stream into the call: " + task);
            JsonNode last = task.getLast();
            assertEquals("completed", last.path("status").asText());
            assertEquals("The code in notes.txt is alpha-beta-gamma-42.", text(last));
            assertTrue(agent.updates(id).stream().noneMatch(u -> "r1".equals(u.path("toolCallId").asText())),
                    "the child's own calls are its steps, not the editor's tool calls");
            assertTrue(model.requests().getLast().rawBody().contains("The code in notes.txt is alpha-beta-gamma-42."));
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC lines");
        }

        try (AgentProcess again = agent()) {
            ObjectNode load = Json.object().put("sessionId", id).put("cwd", ws.toString());
            load.set("mcpServers", Json.mapper().createArrayNode());
            assertTrue(again.call("session/load", load).has("result"));
            List<JsonNode> replayed = again.updates(id).stream().filter(u -> "t1".equals(u.path("toolCallId").asText())).toList();
            assertFalse(replayed.isEmpty(), "the task call is recorded with the session");
            assertEquals("Agent codebase-investigator: find the launch code", replayed.getFirst().path("title").asText());
            assertTrue(replayed.stream().anyMatch(u -> text(u).contains("The code in notes.txt is alpha-beta-gamma-42.")), replayed.toString());
        }
    }
}
