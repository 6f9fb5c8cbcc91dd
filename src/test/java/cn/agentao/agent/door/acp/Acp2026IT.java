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
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Late-2026 ACP: session notices and compaction updates for clients that advertise them (and the old ways for
 * the others), questions as elicitation forms (withdrawn on cancel), and session/fork.
 */
class Acp2026IT {
    static final Duration LONG = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    FakeModelServer model;
    Path ws;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        ws = Files.createDirectories(dir.resolve("ws"));
    }

    @AfterEach
    void stop() {
        model.close();
    }

    /** An agent whose config.json has one bad price entry (a configuration problem to be told about). */
    AgentProcess agent() throws Exception {
        return AgentProcess.startWithUserConfig(dir, """
                {"providers": {"fake": {"kind": "openai", "baseUrl": "%s", "apiKey": "k", "models": ["m"]}},
                 "default": "fake/m", "prices": {"fake/m": {"input": "lots"}}}
                """.formatted(model.baseUrl()));
    }

    static void initialize(AgentProcess agent, ObjectNode caps) throws Exception {
        ObjectNode init = Json.object().put("protocolVersion", 1);
        init.set("clientCapabilities", caps);
        assertTrue(agent.call("initialize", init).has("result"));
    }

    String newSession(AgentProcess agent) throws Exception {
        ObjectNode p = Json.object().put("cwd", ws.toString());
        p.putArray("mcpServers");
        String id = agent.call("session/new", p).path("result").path("sessionId").asText();
        assertFalse(id.isEmpty());
        return id;
    }

    static ObjectNode prompt(String sessionId, String text) {
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    static List<JsonNode> kind(AgentProcess agent, String sessionId, String kind) {
        return agent.updates(sessionId).stream().filter(u -> kind.equals(u.path("sessionUpdate").asText())).toList();
    }

    static ObjectNode caps(String... paths) {
        ObjectNode caps = Json.object();
        for (String path : paths) {
            ObjectNode at = caps;
            for (String part : path.split("\\.")) at = at.has(part) ? (ObjectNode) at.get(part) : at.putObject(part);
        }
        return caps;
    }

    @Test
    void noticesForClientsThatShowThemAWarningLineForOthers() throws Exception {
        try (AgentProcess agent = agent()) {
            initialize(agent, caps("session.notices"));
            String id = newSession(agent);
            JsonNode notice = agent.await(m -> "notice".equals(m.path("params").path("update").path("sessionUpdate").asText()), LONG)
                    .path("params").path("update");
            assertEquals("warning", notice.path("severity").asText());
            assertTrue(notice.path("title").asText().contains("price of 'fake/m'"), notice.toString());
            assertTrue(kind(agent, id, "agent_message_chunk").isEmpty(), "not also as text");
        }
        try (AgentProcess agent = agent()) {
            initialize(agent, Json.object());
            String id = newSession(agent);
            JsonNode chunk = agent.await(m -> m.path("params").path("update").path("content").path("text").asText().startsWith("⚠"), LONG);
            assertTrue(chunk.toString().contains("price of 'fake/m'"), chunk.toString());
            assertTrue(kind(agent, id, "notice").isEmpty(), "no notice for a client that did not ask for them");
        }
    }

    @Test
    void compactionIsShownWhileTheHistoryIsSummarised() throws Exception {
        try (AgentProcess agent = agent()) {
            initialize(agent, caps("session.compaction"));
            String id = newSession(agent);
            model.enqueue(Script.textReply("first answer"), Script.textReply("second answer"), Script.reply().text("SUMMARY ", "of it"));
            agent.call("session/prompt", prompt(id, "first question"), LONG);
            agent.call("session/prompt", prompt(id, "second question"), LONG);
            agent.call("session/prompt", prompt(id, "/compact"), LONG);
            List<JsonNode> updates = kind(agent, id, "compaction_update");
            assertEquals(List.of("in_progress", "completed"), updates.stream().map(u -> u.path("status").asText()).toList(), updates.toString());
            String compactionId = updates.get(0).path("compactionId").asText();
            assertEquals(compactionId, updates.get(1).path("compactionId").asText());
            assertEquals("SUMMARY of it", updates.get(1).path("summary").get(0).path("text").asText());
            String streamed = String.join("", kind(agent, id, "compaction_summary_chunk").stream()
                    .filter(u -> compactionId.equals(u.path("compactionId").asText()))
                    .map(u -> u.path("content").path("text").asText()).toList());
            assertEquals("SUMMARY of it", streamed);
            assertEquals(3, model.requests().size(), "the compaction call was made");
        }
        try (AgentProcess agent = agent()) {
            initialize(agent, Json.object());
            String id = newSession(agent);
            int before = model.requests().size();
            model.enqueue(Script.textReply("first answer"), Script.textReply("second answer"), Script.textReply("SUMMARY"));
            agent.call("session/prompt", prompt(id, "first question"), LONG);
            agent.call("session/prompt", prompt(id, "second question"), LONG);
            agent.call("session/prompt", prompt(id, "/compact"), LONG);
            assertEquals(before + 3, model.requests().size(), "the compaction call was made");
            assertTrue(kind(agent, id, "compaction_update").isEmpty() && kind(agent, id, "compaction_summary_chunk").isEmpty(),
                    "nothing a client did not advertise");
        }
    }

    @Test
    void questionsAreElicitationFormsAndCancelWithdrawsThem() throws Exception {
        try (AgentProcess agent = agent()) {
            initialize(agent, caps("elicitation.form", "_meta.askUser"));
            String id = newSession(agent);
            agent.onClientRequest("elicitation/create", params -> {
                ObjectNode answer = Json.object().put("action", "accept");
                answer.putObject("content").put("answer", "teal");
                return answer;
            });
            model.enqueue(Script.reply().toolCall("call_q1", "ask_user", "{\"question\":\"Favourite colour?\"}"),
                    Script.textReply("noted"));
            assertEquals("end_turn", agent.call("session/prompt", prompt(id, "ask me"), LONG).path("result").path("stopReason").asText());
            JsonNode asked = agent.messages().stream().filter(m -> "elicitation/create".equals(m.path("method").asText())).findFirst().orElseThrow();
            assertEquals("form", asked.path("params").path("mode").asText());
            assertEquals("Favourite colour?", asked.path("params").path("message").asText());
            assertEquals(id, asked.path("params").path("sessionId").asText());
            assertTrue(model.lastRequest().rawBody().contains("teal"), "the answer went back to the model");
            assertTrue(agent.messages().stream().noneMatch(m -> "_agentao.cn/ask_user".equals(m.path("method").asText())),
                    "elicitation is preferred over the vendor extension");
        }
        try (AgentProcess agent = agent()) {
            initialize(agent, caps("elicitation.form"));
            String id = newSession(agent);
            model.enqueue(Script.reply().toolCall("call_q2", "ask_user", "{\"question\":\"Which branch?\"}"), Script.textReply("unused"));
            long turn = agent.start("session/prompt", prompt(id, "ask me"));
            JsonNode asked = agent.await(m -> "elicitation/create".equals(m.path("method").asText()), LONG);
            agent.notify("session/cancel", Json.object().put("sessionId", id));
            assertEquals("cancelled", agent.awaitResponse(turn, LONG).path("result").path("stopReason").asText());
            assertTrue(agent.messages().stream().anyMatch(m -> "$/cancel_request".equals(m.path("method").asText())
                    && m.path("params").path("requestId").equals(asked.path("id"))), "the question was withdrawn: " + agent.messages());
        }
    }

    @Test
    void forkCarriesTheHistoryAndThenGoesItsOwnWay() throws Exception {
        String forkId;
        try (AgentProcess agent = agent()) {
            initialize(agent, Json.object());
            String parent = newSession(agent);
            model.enqueue(Script.textReply("the answer is 42"));
            agent.call("session/prompt", prompt(parent, "what is the answer?"), LONG);

            ObjectNode fork = Json.object().put("sessionId", parent).put("cwd", ws.toString());
            JsonNode forked = agent.call("session/fork", fork);
            forkId = forked.path("result").path("sessionId").asText();
            assertFalse(forkId.isEmpty() || forkId.equals(parent), forked.toString());
            assertTrue(forked.path("result").has("configOptions"), forked.toString());

            model.enqueue(Script.textReply("fork reply"));
            agent.call("session/prompt", prompt(forkId, "only in the fork"), LONG);
            String forkRequest = model.lastRequest().rawBody();
            assertTrue(forkRequest.contains("what is the answer?") && forkRequest.contains("the answer is 42"), "the fork knows the history");

            model.enqueue(Script.textReply("parent reply"));
            agent.call("session/prompt", prompt(parent, "only in the parent"), LONG);
            assertFalse(model.lastRequest().rawBody().contains("only in the fork"), "independent afterwards");

            ObjectNode missing = Json.object().put("sessionId", "no-such-session").put("cwd", ws.toString());
            assertEquals(-32002, agent.call("session/fork", missing).path("error").path("code").asInt());
        }
        try (AgentProcess agent = AgentProcess.start(java.util.Map.of("XDG_CONFIG_HOME", dir.resolve("config").toString(),
                "AGENT_SESSIONS_DIR", dir.resolve("store").toString()), "--acp")) {
            initialize(agent, Json.object());
            ObjectNode load = Json.object().put("sessionId", forkId).put("cwd", ws.toString());
            load.putArray("mcpServers");
            assertTrue(agent.call("session/load", load).has("result"), "the fork was saved");
            String replayed = agent.updates(forkId).toString();
            assertTrue(replayed.contains("what is the answer?") && replayed.contains("only in the fork")
                    && !replayed.contains("only in the parent"), replayed);
        }
    }
}
