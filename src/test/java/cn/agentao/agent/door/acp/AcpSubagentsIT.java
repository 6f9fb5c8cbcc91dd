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
        return agent(Json.object());
    }

    private AgentProcess agent(ObjectNode clientCapabilities) throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        AgentProcess agent = AgentProcess.start(env, "--acp");
        ObjectNode init = Json.object().put("protocolVersion", 1);
        init.set("clientCapabilities", clientCapabilities);
        assertTrue(agent.call("initialize", init).has("result"));
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
            assertTrue(agent.messages().stream().noneMatch(m -> m.toString().contains("subagent_update")),
                    "a client that did not opt in sees no child session");
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

    /** The session/update notifications of {@code sessionId} (the child's included) in the order they came. */
    private static List<JsonNode> updates(AgentProcess agent, String sessionId) {
        return agent.messages().stream().filter(m -> "session/update".equals(m.path("method").asText())
                && sessionId.equals(m.path("params").path("sessionId").asText())).map(m -> m.path("params").path("update")).toList();
    }

    @Test
    void aClientThatOptsInSeesTheChildAsASessionOfItsOwnAnnouncedInTheParentsAndReplayedOnLoad() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path outside = dir.resolve("made.txt");
        model.when(r -> r.body().path("messages").get(0).path("content").asText().contains("# Subagent: general-purpose")).reply(
                // a file outside the workspace: a write the user is asked about
                Script.reply().toolCall("c1", "write_file", Json.object().put("path", outside.toString()).put("content", "x").toString()),
                Script.textReply("Made made.txt."));
        model.enqueue(Script.reply().toolCall("t1", "task",
                "{\"agent\":\"general-purpose\",\"description\":\"make the file\",\"prompt\":\"Create made.txt\"}"),
                Script.textReply("Done."));
        ObjectNode caps = Json.object();
        caps.putObject("subagents");
        String id;
        String child;
        try (AgentProcess agent = agent(caps)) {
            List<JsonNode> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
            agent.onClientRequest("session/request_permission", params -> {
                asked.add(params);
                ObjectNode outcome = Json.object();
                outcome.putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
                return outcome;
            });
            id = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                    .path("result").path("sessionId").asText();
            JsonNode answer = agent.call("session/prompt", AgentProcess.prompt(id, "Make the file"), Duration.ofSeconds(60));
            assertEquals("end_turn", answer.path("result").path("stopReason").asText(), answer.toString());

            List<JsonNode> announced = updates(agent, id).stream().filter(u -> "subagent_update".equals(u.path("sessionUpdate").asText())).toList();
            assertEquals(2, announced.size(), "announced running, then idle: " + announced);
            child = announced.getFirst().path("sessionId").asText();
            assertFalse(child.isEmpty() || child.equals(id), "the child has a session id of its own");
            assertEquals("running", announced.getFirst().path("state").path("state").asText());
            assertEquals("Agent general-purpose", announced.getFirst().path("title").asText());
            assertEquals("make the file", announced.getFirst().path("description").asText());
            assertEquals("idle", announced.getLast().path("state").path("state").asText());
            assertEquals("end_turn", announced.getLast().path("state").path("stopReason").asText());

            List<JsonNode> messages = agent.messages();
            int announcedAt = -1;
            int firstChildUpdate = -1;
            for (int i = 0; i < messages.size(); i++) {
                JsonNode params = messages.get(i).path("params");
                if (announcedAt < 0 && "subagent_update".equals(params.path("update").path("sessionUpdate").asText())) announcedAt = i;
                if (firstChildUpdate < 0 && child.equals(params.path("sessionId").asText())) firstChildUpdate = i;
            }
            assertTrue(announcedAt >= 0 && announcedAt < firstChildUpdate, "the child is announced before any of its own traffic");
            List<JsonNode> own = updates(agent, child);
            assertEquals("user_message_chunk", own.getFirst().path("sessionUpdate").asText(), "the child's session opens with its task");
            assertEquals("Create made.txt", own.getFirst().path("content").path("text").asText());
            assertTrue(own.stream().anyMatch(u -> "tool_call".equals(u.path("sessionUpdate").asText()) && "c1".equals(u.path("toolCallId").asText())),
                    "the child's tool call is in its own session: " + own);
            assertTrue(own.stream().anyMatch(u -> "agent_message_chunk".equals(u.path("sessionUpdate").asText())
                    && u.path("content").path("text").asText().contains("Made")), own.toString());
            assertEquals(1, asked.size());
            assertEquals(child, asked.getFirst().path("sessionId").asText(), "the child's question is asked in its session");
            assertTrue(Files.exists(outside), "the approved write was made");
            assertTrue(updates(agent, id).stream().noneMatch(u -> "c1".equals(u.path("toolCallId").asText())),
                    "the child's calls are not the parent's");
            assertTrue(model.requests().getLast().rawBody().contains("Made made.txt."), "the parent got the child's answer");
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC lines");
        }

        try (AgentProcess again = agent(caps)) {
            ObjectNode load = Json.object().put("sessionId", id).put("cwd", ws.toString());
            load.set("mcpServers", Json.mapper().createArrayNode());
            assertTrue(again.call("session/load", load).has("result"));
            List<JsonNode> announced = updates(again, id).stream().filter(u -> "subagent_update".equals(u.path("sessionUpdate").asText())).toList();
            assertEquals(1, announced.size(), announced.toString());
            assertEquals(child, announced.getFirst().path("sessionId").asText());
            assertEquals("idle", announced.getFirst().path("state").path("state").asText());
            List<JsonNode> own = updates(again, child);
            assertEquals("Create made.txt", own.getFirst().path("content").path("text").asText(), "its task comes first again");
            assertTrue(own.stream().anyMatch(u -> "c1".equals(u.path("toolCallId").asText()) && "completed".equals(u.path("status").asText())),
                    "the child's call is replayed in its session: " + own);
            assertTrue(own.stream().anyMatch(u -> u.path("content").path("text").asText().contains("Made made.txt.")), own.toString());
        }
        try (AgentProcess plain = agent()) {
            ObjectNode load = Json.object().put("sessionId", id).put("cwd", ws.toString());
            load.set("mcpServers", Json.mapper().createArrayNode());
            assertTrue(plain.call("session/load", load).has("result"));
            assertTrue(plain.messages().stream().noneMatch(m -> m.toString().contains("subagent_update") || child.equals(m.path("params").path("sessionId").asText())),
                    "a client that did not opt in gets the task call only");
            assertTrue(updates(plain, id).stream().anyMatch(u -> "t1".equals(u.path("toolCallId").asText())));
        }
    }
}
