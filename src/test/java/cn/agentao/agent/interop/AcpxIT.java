package cn.agentao.agent.interop;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static cn.agentao.agent.testing.FakeModelServer.lastUserMessageContains;
import static org.junit.jupiter.api.Assertions.*;

/**
 * acpx, a headless ACP client, runs one-shot prompts against the real agent ({@code acpx --agent '<bin/agent
 * --acp>' exec …}); its JSON transcript is checked and the agent's side validated against the ACP v1 schema.
 */
class AcpxIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    Path ws;

    @BeforeEach
    void start() throws Exception {
        Interop.ensureInstalled();
        model = FakeModelServer.start();
        model.whenEmptyFail();
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
    }

    @AfterEach
    void stop() {
        model.close();
    }

    Interop.Result acpx(String... args) throws Exception {
        List<String> cmd = Interop.node("node_modules/acpx/dist/cli.js", "--agent", Interop.agentCommand() + " --acp",
                "--timeout", "60");
        cmd.addAll(List.of(args));
        return Interop.run(cmd, Interop.agentEnvironment(model.openAiEnvironment(), dir), ws, Duration.ofSeconds(90));
    }

    /** Parses acpx's --format json output (one JSON-RPC message per line) and validates the agent's side. */
    List<JsonNode> transcript(Interop.Result r) throws Exception {
        return transcript(r, 0);
    }

    List<JsonNode> transcript(Interop.Result r, int exitCode) throws Exception {
        assertEquals(exitCode, r.exitCode(), "acpx exit code; stdout:\n" + r.stdout() + "\nstderr:\n" + Interop.tail(r.stderr()));
        List<JsonNode> messages = new ArrayList<>();
        for (String line : r.stdout().split("\n")) {
            if (line.isBlank()) continue;
            messages.add(Json.mapper().readTree(line));
        }
        Path file = dir.resolve("transcript.jsonl");
        Files.writeString(file, r.stdout());
        Interop.Result v = Interop.run(Interop.node("validate-transcript.mjs", file.toString()), java.util.Map.of(), ws,
                Duration.ofSeconds(30));
        assertEquals(0, v.exitCode(), "schema check of the agent's messages:\n" + v.stdout() + v.stderr());
        return messages;
    }

    static String answer(List<JsonNode> messages) {
        return messages.stream()
                .filter(m -> "session/update".equals(m.path("method").asText()))
                .map(m -> m.path("params").path("update"))
                .filter(u -> "agent_message_chunk".equals(u.path("sessionUpdate").asText()))
                .map(u -> u.path("content").path("text").asText())
                .collect(Collectors.joining());
    }

    static JsonNode resultOf(List<JsonNode> messages, String method) {
        JsonNode request = messages.stream().filter(m -> method.equals(m.path("method").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("acpx sent no " + method));
        return messages.stream().filter(m -> !m.has("method") && m.path("id").equals(request.path("id")))
                .findFirst().orElseThrow(() -> new AssertionError("no answer to " + method)).path("result");
    }

    @Test
    void execStreamsTheAnswerAndExitsZero() throws Exception {
        model.when(lastUserMessageContains("acpx hello")).reply(Script.reply().delay(30).text("Hi", " from", " acpx", " land"));
        List<JsonNode> t = transcript(acpx("--format", "json", "--approve-all", "exec", "acpx hello"));
        assertEquals("Hi from acpx land", answer(t), "the whole answer, in order (how many chunks carry it depends on timing)");
        assertEquals("end_turn", resultOf(t, "session/prompt").path("stopReason").asText());
        assertEquals(1, resultOf(t, "initialize").path("protocolVersion").asInt());
        assertEquals("acpx hello", model.lastRequest().lastUserMessage());
    }

    @Test
    void quietFormatPrintsOnlyTheAnswer() throws Exception {
        model.when(lastUserMessageContains("quiet please")).reply(Script.reply().text("just ", "this"));
        Interop.Result r = acpx("--format", "quiet", "--deny-all", "exec", "quiet please");
        assertEquals(0, r.exitCode(), r.stderr());
        assertEquals("just this", r.stdout().strip());
    }

    @Test
    void configOptionSetBeforeThePrompt() throws Exception {
        model.when(lastUserMessageContains("in read-only")).reply(Script.textReply("reading only"));
        List<JsonNode> t = transcript(acpx("--format", "json", "--deny-all", "exec", "--config-option", "mode=read-only",
                "in read-only"));
        JsonNode options = resultOf(t, "session/set_config_option").path("configOptions");
        JsonNode mode = null;
        for (JsonNode o : options) if ("mode".equals(o.path("id").asText())) mode = o;
        assertNotNull(mode, options.toString());
        assertEquals("read-only", mode.path("currentValue").asText());
        assertTrue(t.stream().anyMatch(m -> "current_mode_update".equals(m.path("params").path("update").path("sessionUpdate").asText())
                && "read-only".equals(m.path("params").path("update").path("currentModeId").asText())), "current_mode_update sent");
        assertEquals("reading only", answer(t));
    }

    /** A shell command that asks to leave the sandbox asks first; approved, it runs in the client terminal. */
    @Test
    void approveAllLetsTheAskedCommandRun() throws Exception {
        model.when(lastUserMessageContains("make a file")).reply(
                Script.reply().toolCall("call_s1", "run_shell_command", Json.object().put("command", "touch made-by-shell.txt").put("sandbox", false).toString()),
                Script.textReply("made it"));
        List<JsonNode> t = transcript(acpx("--format", "json", "--approve-all", "exec", "make a file"));
        assertTrue(t.stream().anyMatch(m -> "session/request_permission".equals(m.path("method").asText())), "asked first");
        assertEquals("completed", finalStatus(t, "call_s1"));
        assertTrue(Files.exists(ws.resolve("made-by-shell.txt")), "approved, so run");
        assertEquals("made it", answer(t));
        // acpx advertises a terminal, so the command ran in it: embedded in the tool call before its release,
        // and every terminal the agent created was released
        List<String> created = new ArrayList<>();
        for (JsonNode m : t) {
            if (!m.has("method") && m.path("result").has("terminalId")) created.add(m.path("result").path("terminalId").asText());
        }
        assertFalse(created.isEmpty(), "the command ran in the client's terminal");
        for (String terminal : created) {
            int embedded = indexOf(t, m -> m.path("params").path("update").path("content").toString().contains(terminal));
            int released = indexOf(t, m -> "terminal/release".equals(m.path("method").asText())
                    && terminal.equals(m.path("params").path("terminalId").asText()));
            assertTrue(released > 0, "terminal " + terminal + " released");
            assertTrue(embedded > 0 && embedded < released, "terminal content embedded before the release");
        }
    }

    @Test
    void denyAllKeepsTheCommandFromRunning() throws Exception {
        model.when(lastUserMessageContains("make a file")).reply(
                Script.reply().toolCall("call_s2", "run_shell_command", Json.object().put("command", "touch denied.txt").put("sandbox", false).toString()),
                Script.textReply("fine, I won't"));
        // acpx exits 5 (PERMISSION_DENIED) when every permission question was denied
        List<JsonNode> t = transcript(acpx("--format", "json", "--deny-all", "exec", "make a file"), 5);
        assertTrue(t.stream().anyMatch(m -> "session/request_permission".equals(m.path("method").asText())), "asked first");
        assertEquals("failed", finalStatus(t, "call_s2"));
        assertFalse(Files.exists(ws.resolve("denied.txt")), "denied, so not run");
        assertEquals("end_turn", resultOf(t, "session/prompt").path("stopReason").asText());
    }

    static int indexOf(List<JsonNode> messages, java.util.function.Predicate<JsonNode> p) {
        for (int i = 0; i < messages.size(); i++) if (p.test(messages.get(i))) return i;
        return -1;
    }

    static String finalStatus(List<JsonNode> messages, String toolCallId) {
        String status = null;
        for (JsonNode m : messages) {
            JsonNode u = m.path("params").path("update");
            if (toolCallId.equals(u.path("toolCallId").asText()) && u.has("status")) status = u.path("status").asText();
        }
        return status;
    }

    /**
     * A store holding damaged sessions (the repo's own fixtures: a zero-byte log, a log of a newer format) still
     * lists through acpx: the readable sessions, the unreadable one whose directory is known with its reason, and
     * never an error for the whole list.
     */
    @Test
    void sessionListSurvivesDamagedSessionFiles() throws Exception {
        Path store = Files.createDirectories(dir.resolve("store"));
        Path fixtures = cn.agentao.agent.testing.AgentProcess.home().resolve("sessions-store/fixtures");
        for (String name : List.of("empty", "future-version", "good")) {
            Files.copy(fixtures.resolve(name + ".jsonl"), store.resolve(name + ".jsonl"));
        }
        Interop.Result r = acpx("--format", "json", "sessions", "list");
        assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
        JsonNode listed = Json.mapper().readTree(r.stdout()); // acpx prints the agent's session/list answer
        assertFalse(listed.has("error"), listed.toString());
        JsonNode sessions = listed.path("sessions");
        List<String> ids = new ArrayList<>();
        sessions.forEach(s -> ids.add(s.path("sessionId").asText()));
        assertTrue(ids.containsAll(List.of("good", "future-version")), ids.toString());
        assertFalse(ids.contains("empty"), "a session without a readable header has no cwd to list under ACP");
        for (JsonNode s : sessions) {
            if (s.path("sessionId").asText().equals("future-version")) {
                assertTrue(s.path("title").asText().contains("version 2"), "listed with the reason: " + s);
            }
        }
    }

    @Test
    void modelFailureIsAnAnswerNotACrash() throws Exception {
        // nothing scripted: the fake model answers HTTP 500; acpx still gets a proper end of turn
        List<JsonNode> t = transcript(acpx("--format", "json", "--approve-all", "exec", "nobody scripted this"));
        assertTrue(answer(t).contains("Error"), answer(t));
        assertEquals("end_turn", resultOf(t, "session/prompt").path("stopReason").asText());
    }
}
