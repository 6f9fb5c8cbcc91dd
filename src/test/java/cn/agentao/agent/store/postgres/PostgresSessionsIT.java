package cn.agentao.agent.store.postgres;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.PostgresServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Agents pointed at PostgreSQL ({@code AGENT_STORE}) as a user runs them: a session made by one process is listed
 * and loaded by another and by {@code agent sessions}; the database going away and coming back during a
 * conversation loses nothing. Against a real throwaway server ({@link PostgresServer}).
 */
class PostgresSessionsIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    PostgresStoreConfig db;
    final List<AgentProcess> agents = new ArrayList<>();
    Path ws;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        db = PostgresServer.shared().freshDatabase();
        ws = Files.createDirectories(dir.resolve("ws"));
    }

    @AfterEach
    void stop() {
        for (AgentProcess a : agents) {
            assertEquals(List.of(), a.violations());
            a.close();
        }
        model.close();
    }

    AgentProcess agent() throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_STORE", db.display());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("files-unused").toString());
        AgentProcess p = AgentProcess.start(env, "--acp");
        agents.add(p);
        assertTrue(p.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        return p;
    }

    ObjectNode setup() {
        return Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode());
    }

    static ObjectNode prompt(String id, String text) {
        ObjectNode p = Json.object().put("sessionId", id);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    static String said(AgentProcess a, String id, int from, String kind) {
        List<JsonNode> u = a.updates(id);
        return u.subList(from, u.size()).stream().filter(x -> kind.equals(x.path("sessionUpdate").asText()))
                .map(x -> x.path("content").path("text").asText()).collect(Collectors.joining("|"));
    }

    static String turn(AgentProcess a, String id, String text) throws Exception {
        int before = a.updates(id).size();
        JsonNode r = a.call("session/prompt", prompt(id, text), Duration.ofSeconds(60));
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        return said(a, id, before, "agent_message_chunk");
    }

    static String listed(AgentProcess a) throws Exception {
        JsonNode list = a.call("session/list", Json.object());
        assertTrue(list.has("result"), list.toString());
        return list.path("result").path("sessions").toString();
    }

    @Test
    void aSessionIsStoredWithItsFirstPromptAndNotBefore() throws Exception {
        AgentProcess a = agent();
        String idle = a.call("session/new", setup()).path("result").path("sessionId").asText();
        String id = a.call("session/new", setup()).path("result").path("sessionId").asText();
        assertTrue(a.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "read-only")).has("result"));
        AgentProcess b = agent();
        assertEquals("[]", listed(b), "no row for a session nobody prompted");
        assertTrue(a.call("session/close", Json.object().put("sessionId", idle)).has("result"));

        model.enqueue(Script.textReply("Paris."));
        assertTrue(turn(a, id, "Capital of France?").contains("Paris."));
        String list = listed(b);
        assertTrue(list.contains(id) && !list.contains(idle), list);
        assertTrue(a.call("session/close", Json.object().put("sessionId", id)).has("result"));
        JsonNode load = b.call("session/load", setup().put("sessionId", id));
        assertEquals("read-only", load.path("result").path("modes").path("currentModeId").asText(), load.toString());
        JsonNode never = b.call("session/load", setup().put("sessionId", idle));
        assertEquals(-32002, never.path("error").path("code").asInt(), never.toString());
    }

    @Test
    void aSessionMadeByOneProcessIsListedAndLoadedByAnother() throws Exception {
        AgentProcess a = agent();
        String id = a.call("session/new", setup()).path("result").path("sessionId").asText();
        model.enqueue(Script.textReply("Paris."), Script.textReply("Berlin."));
        assertTrue(turn(a, id, "Capital of France?").contains("Paris."));
        assertTrue(turn(a, id, "And Germany?").contains("Berlin."));
        assertTrue(a.call("session/close", Json.object().put("sessionId", id)).has("result"));
        assertFalse(Files.exists(dir.resolve("files-unused")), "nothing went to the file store");

        AgentProcess b = agent();
        JsonNode list = b.call("session/list", Json.object());
        assertTrue(list.path("result").path("sessions").toString().contains(id), list.toString());
        JsonNode load = b.call("session/load", setup().put("sessionId", id));
        assertTrue(load.has("result"), load.toString());
        assertEquals("Capital of France?|And Germany?", said(b, id, 0, "user_message_chunk"));
        assertEquals("Paris.|Berlin.", said(b, id, 0, "agent_message_chunk"));
        model.enqueue(Script.textReply("Rome."));
        assertTrue(turn(b, id, "And Italy?").contains("Rome."));
        String sent = model.lastRequest().messages().toString();
        assertTrue(sent.contains("Capital of France?") && sent.contains("Berlin."), sent);

        ProcessBuilder cli = new ProcessBuilder(AgentProcess.home().resolve("bin/agent").toString(), "sessions", "list");
        cli.environment().put("AGENT_STORE", db.display());
        cli.environment().remove("AGENT_LOG_LEVEL");
        cli.redirectError(dir.resolve("cli-err.txt").toFile());
        Process p = cli.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out + Files.readString(dir.resolve("cli-err.txt")));
        assertTrue(out.contains(id), out);
        assertEquals("", Files.readString(dir.resolve("cli-err.txt")), "the command line prints no logger lines");
    }

    @Test
    void theDatabaseRestartingDuringAConversationLosesNothing() throws Exception {
        AgentProcess a = agent();
        String id = a.call("session/new", setup()).path("result").path("sessionId").asText();
        model.enqueue(Script.textReply("one"), Script.textReply("two"), Script.textReply("three"));
        assertTrue(turn(a, id, "first").contains("one"));

        PostgresServer.shared().stop(); // every connection ends, the lease's too
        try {
            String during = turn(a, id, "second");
            assertTrue(during.contains("two"), "the answer still streams: " + during);
            assertTrue(during.contains("could not be saved"), "told in the turn: " + during);
        } finally {
            PostgresServer.shared().startServer();
        }
        String after = turn(a, id, "third");
        assertTrue(after.contains("three") && after.contains("saved again"), after);
        assertTrue(a.call("session/close", Json.object().put("sessionId", id)).has("result"));

        AgentProcess b = agent();
        assertTrue(b.call("session/load", setup().put("sessionId", id)).has("result"));
        assertEquals("first|second|third", said(b, id, 0, "user_message_chunk"), "nothing that waited was lost");
        String agent = said(b, id, 0, "agent_message_chunk");
        assertTrue(agent.contains("one") && agent.contains("two") && agent.contains("three"), agent);
    }

    /**
     * The database stops WHILE the model streams its answer (the scripted reply pauses after its first words; the
     * server is stopped then; the reply goes on): the turn ends telling the user its answer could not be saved, the
     * completed messages are in the database after the restart, the next message works and saves what waited.
     */
    @Test
    void theDatabaseRestartingWhileTheModelStreamsLosesNothingCompleted() throws Exception {
        AgentProcess a = agent();
        String id = a.call("session/new", setup()).path("result").path("sessionId").asText();
        model.enqueue(Script.textReply("one"));
        assertTrue(turn(a, id, "first").contains("one"));

        // the pause is only the window in which the server is stopped: the test waits for the first words itself
        model.enqueue(Script.reply().text("Streaming ").pause(15_000).text("and finished."), Script.textReply("three"));
        int before = a.updates(id).size();
        long call = a.start("session/prompt", prompt(id, "second"));
        a.await(m -> "session/update".equals(m.path("method").asText())
                && m.path("params").path("update").path("content").path("text").asText().contains("Streaming"), Duration.ofSeconds(60));
        JsonNode during;
        PostgresServer.shared().stop();
        try {
            during = a.awaitResponse(call, Duration.ofSeconds(90));
        } finally {
            PostgresServer.shared().startServer();
        }
        String told = said(a, id, before, "agent_message_chunk") + during.path("error").path("message").asText();
        assertTrue(told.contains("could not be saved"), "the user is told, clearly: " + told + " " + during);
        assertFalse(told.contains("reopen"), "it heals by itself (below), so it does not also ask to reopen: " + told);
        assertTrue(told.contains("and finished."), "the answer was not cut: " + told);

        String after = turn(a, id, "third");
        assertTrue(after.contains("three"), "the next message works: " + after);
        assertTrue(a.call("session/close", Json.object().put("sessionId", id)).has("result"));

        AgentProcess b = agent();
        assertTrue(b.call("session/load", setup().put("sessionId", id)).has("result"));
        assertEquals("first|second|third", said(b, id, 0, "user_message_chunk"), "every completed message is there");
        String agent = said(b, id, 0, "agent_message_chunk");
        assertTrue(agent.contains("one") && agent.contains("three"), agent);
    }
}
