package cn.agentao.agent.session;

import cn.agentao.agent.protocol.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
 * The store failing under a real agent process, as a user meets it: a store directory that cannot be created,
 * a disk that fills up mid-conversation (a file size limit set on the running process with {@code prlimit}:
 * the kernel then refuses the log's writes, EFBIG, exactly where ENOSPC would hit), a --resume that cannot be
 * honoured. What must hold: the agent stays usable, the user is told in the session, nothing is lost silently.
 */
class StoreFailuresIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    final List<AgentProcess> agents = new ArrayList<>();
    Path ws;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
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

    AgentProcess agent(Path store, String... args) throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", store.toString());
        List<String> all = new ArrayList<>(List.of("--acp"));
        all.addAll(List.of(args));
        AgentProcess p = AgentProcess.start(env, all.toArray(String[]::new));
        agents.add(p);
        assertTrue(p.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        return p;
    }

    ObjectNode setup() {
        return Json.object().put("cwd", ws.toString()).set("mcpServers", Json.MAPPER.createArrayNode());
    }

    static ObjectNode prompt(String id, String text) {
        ObjectNode p = Json.object().put("sessionId", id);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    /** The agent_message_chunk text of a session since update number {@code from}. */
    static String said(AgentProcess a, String id, int from) {
        List<JsonNode> u = a.updates(id);
        return u.subList(from, u.size()).stream().filter(x -> "agent_message_chunk".equals(x.path("sessionUpdate").asText()))
                .map(x -> x.path("content").path("text").asText()).collect(Collectors.joining());
    }

    /** Waits for the agent_message_chunk of a session that tells the user {@code part}. */
    static JsonNode awaitNotice(AgentProcess a, String id, String part) throws InterruptedException {
        return a.await(m -> "session/update".equals(m.path("method").asText())
                && id.equals(m.path("params").path("sessionId").asText())
                && m.path("params").path("update").path("content").path("text").asText().contains(part), Duration.ofSeconds(30));
    }

    /** Runs a prompt; returns what the agent said during it (all of it is written before the response). */
    static String turn(AgentProcess a, String id, String text) throws Exception {
        int before = a.updates(id).size();
        JsonNode r = a.call("session/prompt", prompt(id, text), Duration.ofSeconds(30));
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        return said(a, id, before);
    }

    @Test
    void anUnusableStoreLeavesTheAgentUsableAndSaysSo() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
        AgentProcess a = agent(notADirectory.resolve("sessions")); // cannot be created, not even by root
        JsonNode r = a.call("session/new", setup());
        assertTrue(r.has("result"), "session/new works without a store: " + r);
        String id = r.path("result").path("sessionId").asText();
        String notice = awaitNotice(a, id, "not being saved").toString();
        assertTrue(notice.contains("not a directory"), "what failed: " + notice);
        assertTrue(notice.contains("--sessions-dir") && notice.contains("AGENT_SESSIONS_DIR"), "what to do: " + notice);
        model.enqueue(Script.textReply("still here"));
        assertTrue(turn(a, id, "hello").contains("still here"));
        JsonNode list = a.call("session/list", Json.object());
        assertTrue(list.has("result") || list.path("error").path("message").asText().contains("--sessions-dir"), list.toString());
    }

    @Test
    void aFailedAppendIsToldInTheTurnAndSavedWhenWritingWorksAgain() throws Exception {
        Path store = dir.resolve("store");
        AgentProcess a = agent(store);
        String id = a.call("session/new", setup()).path("result").path("sessionId").asText();
        model.enqueue(Script.textReply("one"), Script.textReply("two"), Script.textReply("three"));
        assertTrue(turn(a, id, "first").contains("one"));

        Path log = store.resolve(id + ".jsonl");
        limitFileSize(a, Long.toString(Files.size(log))); // "the disk is full": no record fits any more
        String during = turn(a, id, "second");
        assertTrue(during.contains("two"), "the answer still streams: " + during);
        assertTrue(during.contains("could not be saved") && during.contains("file too large"), "told in the turn: " + during);
        long sizeWhileFull = Files.size(log);

        limitFileSize(a, "unlimited"); // space returns
        String after = turn(a, id, "third");
        assertTrue(after.contains("three") && after.contains("saved again"), after);
        assertTrue(Files.size(log) > sizeWhileFull);
        assertTrue(a.call("session/close", Json.object().put("sessionId", id)).has("result"));

        AgentProcess b = agent(store);
        assertTrue(b.call("session/load", setup().put("sessionId", id)).has("result"));
        List<JsonNode> replay = b.updates(id);
        String users = replay.stream().filter(u -> "user_message_chunk".equals(u.path("sessionUpdate").asText()))
                .map(u -> u.path("content").path("text").asText()).collect(Collectors.joining("|"));
        assertEquals("first|second|third", users, "nothing that waited was lost");
        String agent = said(b, id, 0);
        assertTrue(agent.contains("one") && agent.contains("two") && agent.contains("three"), agent);
    }

    /** Sets RLIMIT_FSIZE of the running agent (soft limit; the hard limit stays unlimited so it can be raised). */
    static void limitFileSize(AgentProcess a, String bytes) throws Exception {
        Process p = new ProcessBuilder("prlimit", "--pid", Long.toString(a.process().pid()), "--fsize=" + bytes + ":unlimited")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "prlimit failed: " + out);
    }

    @Test
    void aResumeThatCannotBeHonouredIsToldInTheSession() throws Exception {
        AgentProcess a = agent(dir.resolve("store"), "--resume", "no-such-id");
        JsonNode r = a.call("session/new", setup());
        assertTrue(r.has("result"), r.toString());
        String id = r.path("result").path("sessionId").asText();
        JsonNode notice = awaitNotice(a, id, "--resume");
        assertTrue(notice.toString().contains("no-such-id") && notice.toString().contains("new session"), notice.toString());
    }
}
