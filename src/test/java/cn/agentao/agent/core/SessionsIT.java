package cn.agentao.agent.core;

import cn.agentao.agent.util.Json;
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
 * Conversations survive: load with replay, resume, list, close, delete, --resume, kill -9, two processes; and the
 * store failing as a user meets it: a store directory that cannot be created, a disk that fills up mid-conversation
 * (a file size limit set on the running agent with {@code prlimit}: the kernel then refuses the log's writes, EFBIG,
 * where ENOSPC would hit), a --resume that cannot be honoured. The agent stays usable, the user is told in the
 * session, nothing is lost silently.
 */
class SessionsIT {
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

    AgentProcess agent(String... args) throws Exception {
        return agentWithStore(dir.resolve("store"), args);
    }

    AgentProcess agentWithStore(Path store, String... args) throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", store.toString());
        List<String> all = new ArrayList<>(List.of("--acp"));
        all.addAll(List.of(args));
        AgentProcess p = AgentProcess.start(env, all.toArray(String[]::new));
        agents.add(p);
        assertTrue(p.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        return p;
    }

    ObjectNode setup(Path cwd) {
        return Json.object().put("cwd", cwd.toString()).set("mcpServers", Json.mapper().createArrayNode());
    }

    String newSession(AgentProcess a) throws Exception {
        JsonNode r = a.call("session/new", setup(ws));
        assertTrue(r.has("result"), r.toString());
        return r.path("result").path("sessionId").asText();
    }

    static ObjectNode prompt(String id, String text) {
        ObjectNode p = Json.object().put("sessionId", id);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    static String text(List<JsonNode> updates, String kind) {
        return updates.stream().filter(u -> kind.equals(u.path("sessionUpdate").asText()))
                .map(u -> u.path("content").path("text").asText()).collect(Collectors.joining("|"));
    }

    @Test
    void loadReplaysTheConversationAndRestoresSettings() throws Exception {
        AgentProcess a = agent();
        String id = newSession(a);
        model.enqueue(Script.reply().reasoning("pondering").text("Paris ", "is the capital."), Script.textReply("Berlin."));
        a.call("session/prompt", prompt(id, "Capital of France?"));
        a.call("session/prompt", prompt(id, "And Germany?"));
        a.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "read-only"));
        a.call("session/set_config_option", Json.object().put("sessionId", id).put("configId", "model").put("value", "openai/other-model"));
        assertTrue(a.call("session/close", Json.object().put("sessionId", id)).has("result"));
        a.closeStdin();
        a.awaitExit(Duration.ofSeconds(30));

        AgentProcess b = agent();
        ObjectNode load = setup(ws).put("sessionId", id);
        JsonNode r = b.call("session/load", load);
        assertTrue(r.has("result"), r.toString());
        assertEquals("read-only", r.path("result").path("modes").path("currentModeId").asText());
        assertTrue(r.path("result").path("configOptions").toString().contains("\"currentValue\":\"openai/other-model\""));
        List<JsonNode> replay = b.updates(id);
        assertEquals("Capital of France?|And Germany?", text(replay, "user_message_chunk"));
        assertEquals("Paris is the capital.|Berlin.", text(replay, "agent_message_chunk"));
        assertEquals("pondering", text(replay, "agent_thought_chunk"));
        // the replay came before the answer
        int responseAt = b.messages().indexOf(r);
        long replayedAfter = b.messages().subList(responseAt + 1, b.messages().size()).stream()
                .filter(m -> m.path("params").path("update").path("sessionUpdate").asText().endsWith("_chunk")).count();
        assertEquals(0, replayedAfter);
        model.enqueue(Script.textReply("Rome."));
        b.call("session/prompt", prompt(id, "And Italy?"));
        String sent = model.lastRequest().messages().toString();
        assertTrue(sent.contains("Capital of France?") && sent.contains("Berlin.") && sent.contains("And Italy?"), sent);
        assertEquals("other-model", model.lastRequest().model());
    }

    /** {@code agent sessions ...} as a user runs it, against this test's store; returns stdout (exit code checked). */
    String sessionsCli(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(AgentProcess.home().resolve("bin/agent").toString(), "sessions"));
        cmd.addAll(List.of(args));
        Path err = dir.resolve("cli-stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
        pb.environment().put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        pb.environment().remove("AGENT_LOG_LEVEL");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out + Files.readString(err));
        assertEquals("", Files.readString(err), "the command line prints no logger lines");
        return out;
    }

    /** The transcript of a real conversation shows both sides: replies before and after a tool call, its result. */
    @Test
    void transcriptOfARealSessionShowsBothSides() throws Exception {
        AgentProcess a = agent();
        String id = newSession(a);
        String write = Json.object().put("path", ws.resolve("notes.txt").toString()).put("content", "remember the milk\n").toString();
        model.enqueue(Script.reply().reasoning("a file is best").text("I'll write it down.").toolCall("call_n", "write_file", write),
                Script.textReply("Written to notes.txt."));
        a.call("session/prompt", prompt(id, "Note: remember the milk"), Duration.ofSeconds(30));
        a.call("session/close", Json.object().put("sessionId", id));

        String show = sessionsCli("show", id.substring(0, 8));
        int user = show.indexOf("User:\n  Note: remember the milk");
        int before = show.indexOf("I'll write it down.");
        int tool = show.indexOf("* tool: ");
        int after = show.indexOf("Written to notes.txt.");
        assertTrue(user >= 0 && before > user && tool > before && after > tool, "both sides, in order:\n" + show);
        assertTrue(show.substring(tool, show.indexOf('\n', tool)).contains("completed"), show);
        assertFalse(show.contains("a file is best"), "reasoning only when asked for");
        assertTrue(sessionsCli("show", id, "--thoughts").contains("(thinking) a file is best"));

        String md = sessionsCli("export", id, "--format", "markdown");
        assertTrue(md.contains("Note: remember the milk") && md.contains("I'll write it down.") && md.contains("Written to notes.txt."), md);
        assertEquals("Deleted 1 session.\n", sessionsCli("prune", "--keep", "0").replaceAll("(?m)^deleted .*\n", ""));
    }

    @Test
    void listShowsTitlesNewestFirstAndFiltersByCwd() throws Exception {
        AgentProcess a = agent();
        Path other = Files.createDirectories(dir.resolve("other"));
        String first = newSession(a);
        model.whenEmpty(Script.textReply("ok"));
        a.call("session/prompt", prompt(first, "Fix the login bug"));
        Thread.sleep(20);
        String second = a.call("session/new", setup(other)).path("result").path("sessionId").asText();
        a.call("session/prompt", prompt(second, "Write docs"));
        JsonNode all = a.call("session/list", Json.object()).path("result").path("sessions");
        assertEquals(second, all.get(0).path("sessionId").asText());
        assertEquals("Write docs", all.get(0).path("title").asText());
        assertEquals("Fix the login bug", all.get(1).path("title").asText());
        assertFalse(all.get(0).path("updatedAt").asText().isEmpty());
        JsonNode filtered = a.call("session/list", Json.object().put("cwd", ws.toString())).path("result").path("sessions");
        assertEquals(1, filtered.size());
        assertEquals(first, filtered.get(0).path("sessionId").asText());
        assertEquals(-32602, a.call("session/list", Json.object().put("cursor", "garbage!")).path("error").path("code").asInt());
        JsonNode caps = a.call("initialize", Json.object().put("protocolVersion", 1)).path("result").path("agentCapabilities");
        assertTrue(caps.path("loadSession").asBoolean());
        for (String c : List.of("list", "resume", "close", "delete")) assertTrue(caps.path("sessionCapabilities").has(c), c);
    }

    @Test
    void resumeRestoresWithoutReplayAndDeleteForgets() throws Exception {
        AgentProcess a = agent();
        String id = newSession(a);
        model.enqueue(Script.textReply("remembered"));
        a.call("session/prompt", prompt(id, "remember this"));
        a.call("session/close", Json.object().put("sessionId", id));
        JsonNode r = a.call("session/resume", Json.object().put("sessionId", id).put("cwd", ws.toString()));
        assertTrue(r.has("result"), r.toString());
        // a client retrying resume (after a timeout, say) gets the same session again, not "already open"
        JsonNode again = a.call("session/resume", Json.object().put("sessionId", id).put("cwd", ws.toString()));
        assertEquals(id, again.path("result").path("sessionId").asText(), again.toString());
        long chunksAfterResume = a.messages().subList(a.messages().indexOf(r), a.messages().size()).stream()
                .filter(m -> m.path("params").path("update").path("sessionUpdate").asText().equals("user_message_chunk")).count();
        assertEquals(0, chunksAfterResume, "resume does not replay");
        model.enqueue(Script.textReply("yes"));
        a.call("session/prompt", prompt(id, "do you remember?"));
        assertTrue(model.lastRequest().messages().toString().contains("remember this"));
        assertTrue(a.call("session/delete", Json.object().put("sessionId", id)).has("result"));
        assertEquals(0, a.call("session/list", Json.object()).path("result").path("sessions").size());
        assertEquals(-32002, a.call("session/load", setup(ws).put("sessionId", id)).path("error").path("code").asInt(), "deleted: not found");
    }

    @Test
    void aSessionLiveInOneProcessIsRefusedByAnother() throws Exception {
        AgentProcess a = agent();
        String id = newSession(a);
        model.enqueue(Script.textReply("saved from here on"));
        turn(a, id, "hello"); // a session is stored with its first prompt
        assertEquals(-32600, a.call("session/load", setup(ws).put("sessionId", id)).path("error").path("code").asInt());
        AgentProcess b = agent();
        JsonNode r = b.call("session/load", setup(ws).put("sessionId", id));
        assertEquals(-32600, r.path("error").path("code").asInt());
        assertTrue(r.path("error").path("message").asText().contains("another agent process"), r.toString());
        a.call("session/close", Json.object().put("sessionId", id));
        assertTrue(b.call("session/load", setup(ws).put("sessionId", id)).has("result"));
    }

    @Test
    void killedMidAnswerLosesAtMostTheMessageInFlight() throws Exception {
        AgentProcess a = agent();
        String id = newSession(a);
        model.enqueue(Script.textReply("complete answer"), Script.reply().text("half ").hang());
        a.call("session/prompt", prompt(id, "first"));
        a.start("session/prompt", prompt(id, "second"));
        a.await(m -> "half ".equals(m.path("params").path("update").path("content").path("text").asText()), Duration.ofSeconds(30));
        a.process().destroyForcibly().waitFor();

        AgentProcess b = agent();
        JsonNode r = b.call("session/load", setup(ws).put("sessionId", id));
        assertTrue(r.has("result"), r.toString());
        List<JsonNode> replay = b.updates(id);
        assertEquals("first|second", text(replay, "user_message_chunk"));
        assertEquals("complete answer", text(replay, "agent_message_chunk"));
        model.enqueue(Script.textReply("recovered"));
        JsonNode next = b.call("session/prompt", prompt(id, "third"));
        assertEquals("end_turn", next.path("result").path("stopReason").asText(), next.toString());
    }

    @Test
    void killedMidToolCallReplaysItAsFailedAndTheConversationGoesOn() throws Exception {
        AgentProcess a = agent();
        String id = newSession(a);
        a.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "full-access"));
        model.enqueue(Script.reply().text("Let me wait.").toolCall("call_sleep", "run_shell_command", "{\"command\":\"echo started; sleep 30\"}"));
        a.start("session/prompt", prompt(id, "wait for me"));
        a.await(m -> m.path("params").path("update").path("content").toString().contains("started"), Duration.ofSeconds(30));
        // Freeze the agent first, so it cannot see (and save) the shell's death; then end the shell, which kill -9
        // would orphan, and the agent: as a power cut would, mid-call.
        List<ProcessHandle> children = a.process().descendants().toList();
        assertEquals(0, new ProcessBuilder("kill", "-STOP", String.valueOf(a.process().pid())).start().waitFor());
        children.forEach(ProcessHandle::destroyForcibly);
        a.process().destroyForcibly().waitFor();

        AgentProcess b = agent();
        assertTrue(b.call("session/load", setup(ws).put("sessionId", id)).has("result"));
        List<JsonNode> replay = b.updates(id);
        assertEquals("wait for me", text(replay, "user_message_chunk"));
        assertEquals("Let me wait.", text(replay, "agent_message_chunk"));
        JsonNode call = replay.stream().filter(u -> "tool_call".equals(u.path("sessionUpdate").asText())).findFirst().orElseThrow();
        assertEquals("call_sleep", call.path("toolCallId").asText());
        assertEquals("failed", call.path("status").asText(), "a tool cut off by the kill is not shown as running");
        model.enqueue(Script.textReply("carrying on"));
        JsonNode next = b.call("session/prompt", prompt(id, "are you there?"));
        assertEquals("end_turn", next.path("result").path("stopReason").asText(), next.toString());
        String sent = model.lastRequest().messages().toString();
        assertTrue(sent.contains("call_sleep") && sent.contains("Not run"), "the interrupted call has a result for the model: " + sent);
    }

    @Test
    void resumeFlagReopensTheLatestSessionOfTheDirectory() throws Exception {
        AgentProcess a = agent();
        String id = newSession(a);
        model.enqueue(Script.textReply("hello there"));
        a.call("session/prompt", prompt(id, "greet me"));
        a.closeStdin();
        a.awaitExit(Duration.ofSeconds(30));

        AgentProcess b = agent("--resume");
        JsonNode r = b.call("session/new", setup(ws));
        assertEquals(id, r.path("result").path("sessionId").asText());
        assertEquals("greet me", text(b.updates(id), "user_message_chunk"));
        JsonNode fresh = b.call("session/new", setup(ws));
        assertNotEquals(id, fresh.path("result").path("sessionId").asText(), "only the first session/new resumes");

        AgentProcess c = agent("--resume", id.substring(0, 8));
        assertEquals(-32002, c.call("session/load", setup(ws).put("sessionId", "x")).path("error").path("code").asInt());
        // b still holds the session: --resume falls back to a fresh one with a warning
        JsonNode d = c.call("session/new", setup(ws));
        assertNotEquals(id, d.path("result").path("sessionId").asText());
        // told in the session (stderr is read by another thread, so it is not asserted right after the answer)
        assertTrue(awaitNotice(c, d.path("result").path("sessionId").asText(), "--resume").toString().contains("could not be reopened"));

        // a --resume that cannot be honoured is told in the session, not only on stderr
        AgentProcess e = agent("--resume", "no-such-id");
        JsonNode started = e.call("session/new", setup(ws));
        assertTrue(started.has("result"), started.toString());
        String notice = awaitNotice(e, started.path("result").path("sessionId").asText(), "--resume").toString();
        assertTrue(notice.contains("no-such-id") && notice.contains("new session"), notice);
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

    /** The ids session/list offers. */
    static List<String> listed(AgentProcess a) throws Exception {
        JsonNode r = a.call("session/list", Json.object());
        assertTrue(r.has("result"), r.toString());
        List<String> ids = new ArrayList<>();
        r.path("result").path("sessions").forEach(s -> ids.add(s.path("sessionId").asText()));
        return ids;
    }

    /** The session logs in a store directory (none when it does not exist). */
    static List<Path> logs(Path store) throws Exception {
        if (!Files.isDirectory(store)) return List.of();
        try (var files = Files.list(store)) {
            return files.filter(f -> f.toString().endsWith(".jsonl")).toList();
        }
    }

    @Test
    void aSessionIsSavedWithItsFirstPromptAndNotBefore() throws Exception {
        Path store = dir.resolve("store");
        AgentProcess a = agentWithStore(store);
        String idle = newSession(a); // an editor's panel opened and closed again
        String id = newSession(a);
        assertTrue(a.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "read-only")).has("result"));
        assertTrue(turn(a, id, "/help").contains("Commands:"), "a command the agent answers itself");
        assertEquals(List.of(), listed(a), "nothing prompted, nothing listed");
        assertEquals(List.of(), logs(store), "nothing stored");
        assertTrue(a.call("session/close", Json.object().put("sessionId", idle)).has("result"));
        JsonNode load = a.call("session/load", setup(ws).put("sessionId", idle));
        assertEquals(-32002, load.path("error").path("code").asInt(), load.toString());

        model.enqueue(Script.textReply("hi"));
        assertTrue(turn(a, id, "hello there").contains("hi"));
        assertEquals(List.of(id), listed(a), "listed from its first prompt on");
        JsonNode first = a.call("session/list", Json.object()).path("result").path("sessions").get(0);
        assertEquals("hello there", first.path("title").asText(), "the first question names it, not /help: " + first);
        assertEquals(1, logs(store).size());
        a.closeStdin();
        a.awaitExit(Duration.ofSeconds(30));

        AgentProcess b = agentWithStore(store);
        JsonNode r = b.call("session/load", setup(ws).put("sessionId", id));
        assertEquals("read-only", r.path("result").path("modes").path("currentModeId").asText(), "chosen before the prompt, kept: " + r);
        assertEquals("/help|hello there", text(b.updates(id), "user_message_chunk"));
        JsonNode resume = b.call("session/resume", Json.object().put("sessionId", idle).put("cwd", ws.toString()));
        assertEquals(-32002, resume.path("error").path("code").asInt(), resume.toString());
        assertEquals(List.of(id), listed(b));
    }

    @Test
    void anUnusableStoreLeavesTheAgentUsableAndSaysSo() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
        AgentProcess a = agentWithStore(notADirectory.resolve("sessions")); // cannot be created, not even by root
        JsonNode r = a.call("session/new", setup(ws));
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
        AgentProcess a = agentWithStore(store);
        String id = a.call("session/new", setup(ws)).path("result").path("sessionId").asText();
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

        AgentProcess b = agentWithStore(store);
        assertTrue(b.call("session/load", setup(ws).put("sessionId", id)).has("result"));
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
}
