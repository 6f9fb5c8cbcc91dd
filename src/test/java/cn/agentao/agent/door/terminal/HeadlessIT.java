package cn.agentao.agent.door.terminal;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.AgentRun;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
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

/** {@code agent -p}: the real program, its output formats, exit codes, stdin, denials, and sessions shared with ACP. */
class HeadlessIT {
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
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
    }

    @AfterEach
    void stop() {
        model.close();
    }

    private AgentRun.Result run(String stdin, String... args) throws Exception {
        AgentRun.Result r = AgentRun.run(ws, env, stdin, args);
        assertFalse(r.stderr().contains("Exception") || r.stderr().contains("\tat "), "no stack trace: " + r.stderr());
        assertFalse(r.stdout().contains(FakeModelServer.API_KEY) || r.stderr().contains(FakeModelServer.API_KEY), "the key is never printed");
        return r;
    }

    private static JsonNode json(String line) {
        try {
            return Json.mapper().readTree(line);
        } catch (Exception e) {
            throw new AssertionError("not a JSON line: " + line, e);
        }
    }

    @Test
    void textPrintsOnlyTheAnswer() throws Exception {
        model.enqueue(Script.reply().text("Hello", ", ", "world").finish("stop"));
        AgentRun.Result r = run(null, "-p", "Say hello");
        assertEquals(0, r.exit(), r.stderr());
        assertEquals("Hello, world\n", r.stdout());
        assertEquals("", r.stderr(), "nothing but the answer: no log lines, no JVM warnings");
        assertEquals("Say hello", model.requests().get(0).lastUserMessage());
    }

    @Test
    void theUsersHooksAndSkillsWorkInPrintMode() throws Exception {
        env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        Path config = Files.createDirectories(dir.resolve("config/agent"));
        Files.writeString(config.resolve("hooks.json"), """
                {"hooks": {
                  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'HOOK-CONTEXT: we use make'"}]}],
                  "PreToolUse": [{"matcher": "run_shell_command", "hooks": [{"type": "command",
                    "command": "cat > /dev/null; echo 'HOOK-EXIT-2: no touching' >&2; exit 2"}]}]}}
                """);
        Path skill = Files.createDirectories(config.resolve("skills/style"));
        Files.writeString(skill.resolve("SKILL.md"), "---\nname: style\ndescription: House style for prose\n---\nSKILL-BODY: short sentences.\n");
        model.enqueue(Script.reply().toolCall("c1", "run_shell_command", "{\"command\":\"touch ran.txt\"}")
                        .toolCall("s1", "activate_skill", "{\"name\":\"style\"}").finish("tool_calls"),
                Script.textReply("done"));
        AgentRun.Result r = run(null, "-p", "tidy up");
        assertEquals(0, r.exit(), r.stderr());
        assertTrue(model.requests().get(0).messages().toString().contains("HOOK-CONTEXT: we use make"), "the prompt hook's context went with the prompt");
        String next = model.requests().get(1).messages().toString();
        assertTrue(next.contains("HOOK-EXIT-2: no touching"), "the model is told why the hook blocked: " + next);
        assertFalse(Files.exists(ws.resolve("ran.txt")), "the blocked command did not run");
        assertTrue(next.contains("SKILL-BODY: short sentences."), "the user's skill reached the model: " + next);
    }

    @Test
    void printIsAgentaosSpelling() throws Exception {
        model.enqueue(Script.textReply("fine"));
        AgentRun.Result r = run(null, "--print", "How are you?");
        assertEquals(0, r.exit(), r.stderr());
        assertEquals("fine\n", r.stdout());
    }

    @Test
    void jsonIsOneObjectAtTheEnd() throws Exception {
        model.enqueue(Script.reply().text("forty", "-two").usage(10, 5).finish("stop"));
        AgentRun.Result r = run(null, "-p", "The answer?", "--output-format", "json");
        assertEquals(0, r.exit(), r.stderr());
        assertEquals(1, r.stdoutLines().size(), r.stdout());
        JsonNode o = json(r.stdout());
        assertEquals("forty-two", o.path("text").asText());
        assertEquals("end_turn", o.path("stopReason").asText());
        assertFalse(o.path("sessionId").asText().isEmpty());
        assertTrue(o.path("usage").path("used").asLong() > 0, o.toString());
    }

    @Test
    void streamJsonIsTheSessionUpdatesThenTheResult() throws Exception {
        model.enqueue(Script.reply().reasoning("thinking").text("one ", "two").finish("stop"));
        AgentRun.Result r = run(null, "-p", "Count", "--output-format", "stream-json");
        assertEquals(0, r.exit(), r.stderr());
        List<JsonNode> lines = r.stdoutLines().stream().map(HeadlessIT::json).toList();
        JsonNode last = lines.get(lines.size() - 1);
        assertEquals("result", last.path("type").asText());
        assertEquals("one two", last.path("text").asText());
        String id = last.path("sessionId").asText();
        StringBuilder answer = new StringBuilder();
        boolean thought = false;
        for (JsonNode l : lines.subList(0, lines.size() - 1)) {
            assertEquals(id, l.path("sessionId").asText(), l.toString());
            String kind = l.path("update").path("sessionUpdate").asText();
            assertFalse(kind.isEmpty(), "each line is a session/update payload: " + l);
            if (kind.equals("agent_message_chunk")) answer.append(l.path("update").path("content").path("text").asText());
            if (kind.equals("agent_thought_chunk")) thought = true;
        }
        assertEquals("one two", answer.toString());
        assertTrue(thought, "reasoning is streamed too");
    }

    @Test
    void stdinIsThePromptOrAppendedToIt() throws Exception {
        model.enqueue(Script.textReply("a"), Script.textReply("b"));
        AgentRun.Result alone = run("what is in stdin", "--output-format", "text");
        assertEquals(0, alone.exit(), alone.stderr());
        assertEquals("what is in stdin", model.requests().get(0).lastUserMessage().strip());
        AgentRun.Result both = run("line one\nline two\n", "-p", "Summarise this:");
        assertEquals(0, both.exit(), both.stderr());
        String sent = model.requests().get(1).lastUserMessage();
        assertTrue(sent.startsWith("Summarise this:") && sent.contains("line one\nline two"), sent);
    }

    @Test
    void whatWouldAskIsDeniedAndSaid() throws Exception {
        model.enqueue(Script.reply().toolCall("c1", "write_file", "{\"path\":\".env\",\"content\":\"X=1\"}").finish("tool_calls"),
                Script.textReply("could not write it"));
        AgentRun.Result text = run(null, "-p", "write .env");
        assertEquals(0, text.exit(), text.stderr());
        assertFalse(Files.exists(ws.resolve(".env")), "the denied write did not happen");
        assertTrue(text.stderr().contains("denied"), text.stderr());
        assertEquals("could not write it\n", text.stdout());

        model.enqueue(Script.reply().toolCall("c2", "write_file", "{\"path\":\".env\",\"content\":\"X=1\"}").finish("tool_calls"),
                Script.textReply("no"));
        AgentRun.Result json = run(null, "-p", "write .env", "--output-format", "json");
        assertFalse(Files.exists(ws.resolve(".env")));
        JsonNode denied = json(json.stdout()).path("denied");
        assertEquals(1, denied.size(), json.stdout());
        assertEquals("c2", denied.get(0).path("toolCallId").asText().replaceAll(".*?(c2).*", "$1"), denied.toString());
    }

    @Test
    void fullAccessModeDoesNotAskForAnOrdinaryWrite() throws Exception {
        model.enqueue(Script.reply().toolCall("c1", "write_file", "{\"path\":\"notes.txt\",\"content\":\"hi\"}").finish("tool_calls"),
                Script.textReply("written"));
        AgentRun.Result r = run(null, "-p", "write notes", "--mode", "full-access");
        assertEquals(0, r.exit(), r.stderr());
        assertEquals("hi", Files.readString(ws.resolve("notes.txt")));

        model.enqueue(Script.reply().toolCall("c2", "write_file", "{\"path\":\"more.txt\",\"content\":\"hi\"}").finish("tool_calls"),
                Script.textReply("refused"));
        AgentRun.Result ro = run(null, "-p", "write more", "--mode", "read-only");
        assertEquals(0, ro.exit(), ro.stderr());
        assertFalse(Files.exists(ws.resolve("more.txt")), "read-only wrote nothing");
    }

    @Test
    void aModelFailureIsOnePlainLineAndExitOne() throws Exception {
        model.enqueue(Script.httpError(401, "{\"error\":{\"message\":\"bad key\"}}"));
        AgentRun.Result r = run(null, "-p", "hello");
        assertEquals(1, r.exit(), r.stderr());
        assertEquals("", r.stdout());
        assertEquals(1, r.stderr().strip().lines().count(), "one line: " + r.stderr());
        assertTrue(r.stderr().startsWith("agent: "), r.stderr());
    }

    @Test
    void aFailingToolTheModelAnsweredAboutIsAnAnswerButATurnEndedInItsToolsExitsOne() throws Exception {
        // the tool fails (no such file), the model hears it and answers: the answer is complete, exit 0
        model.enqueue(Script.reply().toolCall("r1", "read_file", "{\"path\":\"missing.txt\"}").finish("tool_calls"),
                Script.textReply("There is no missing.txt."));
        AgentRun.Result answered = run(null, "-p", "read missing.txt");
        assertEquals(0, answered.exit(), answered.stderr());
        assertEquals("There is no missing.txt.\n", answered.stdout());
        assertTrue(model.requests().get(1).messages().toString().contains("missing.txt"), "the model heard the failure");

        // the turn never reaches an answer: it ends in its tool calls at the limit of model calls, exit 1, one line
        env.put("AGENT_MAX_MODEL_CALLS", "3");
        for (String id : new String[]{"l1", "l2", "l3"}) {
            model.enqueue(Script.reply().toolCall(id, "read_file", "{\"path\":\"missing.txt\"}").finish("tool_calls"));
        }
        AgentRun.Result looped = run(null, "-p", "loop", "--output-format", "json");
        assertEquals(1, looped.exit(), looped.stderr());
        assertEquals(1, looped.stderr().strip().lines().count(), "one line: " + looped.stderr());
        assertTrue(looped.stderr().startsWith("agent: the turn stopped without a final answer"), looped.stderr());
        JsonNode result = json(looped.stdout().strip());
        assertEquals("max_turn_requests", result.path("stopReason").asText(), looped.stdout());
        assertTrue(result.path("error").asText().contains("AGENT_MAX_MODEL_CALLS"), looped.stdout());
        assertEquals(5, model.requests().size(), "three model calls, no fourth");
    }

    @Test
    void jsonIsAnObjectWithTheErrorOnEveryFailure() throws Exception {
        model.enqueue(Script.httpError(401, "{\"error\":{\"message\":\"bad key\"}}"));
        AgentRun.Result refused = run(null, "-p", "hello", "--output-format", "json");
        assertEquals(1, refused.exit(), refused.stderr());
        JsonNode o = json(refused.stdout().strip());
        assertFalse(o.path("error").asText().isEmpty(), refused.stdout());
        assertEquals("error", o.path("stopReason").asText(), "a failed turn is not end_turn: " + refused.stdout());

        model.enqueue(Script.httpError(401, "{\"error\":{\"message\":\"bad key\"}}"));
        AgentRun.Result streamed = run(null, "-p", "hello", "--output-format", "stream-json");
        assertEquals(1, streamed.exit(), streamed.stderr());
        List<String> lines = streamed.stdoutLines();
        JsonNode last = json(lines.get(lines.size() - 1));
        assertEquals("result", last.path("type").asText(), streamed.stdout());
        assertEquals("error", last.path("stopReason").asText(), streamed.stdout());
        assertFalse(last.path("error").asText().isEmpty(), streamed.stdout());

        env.remove("OPENAI_API_KEY");
        env.remove("OPENAI_BASE_URL");
        env.remove("OPENAI_MODEL");
        env.remove("LLM_PROVIDER");
        AgentRun.Result none = run(null, "-p", "hello", "--output-format", "json");
        assertEquals(1, none.exit(), none.stderr());
        assertEquals(1, none.stdoutLines().size(), "one object: " + none.stdout());
        JsonNode n = json(none.stdout().strip());
        assertTrue(n.path("error").asText().contains("OPENAI_API_KEY"), none.stdout());
        assertEquals("error", n.path("stopReason").asText(), none.stdout());
        assertEquals(2, model.requests().size(), "the unconfigured run asked no model");
    }

    @Test
    void theResultCarriesTheCost() throws Exception {
        Files.createDirectories(dir.resolve("config/agent"));
        Files.writeString(dir.resolve("config/agent/config.json"), "{\"prices\": {\"" + FakeModelServer.MODEL
                + "\": {\"input\": 2, \"output\": 10, \"currency\": \"USD\"}}}");
        model.enqueue(Script.reply().text("priced").usage(1000, 100).finish("stop"));
        AgentRun.Result r = run(null, "-p", "what does it cost?", "--output-format", "json");
        assertEquals(0, r.exit(), r.stderr());
        JsonNode cost = json(r.stdout().strip()).path("usage").path("cost");
        assertEquals(0.003, cost.path("amount").asDouble(), 1e-9, r.stdout()); // 1000 in at 2, 100 out at 10, per million
        assertEquals("USD", cost.path("currency").asText(), r.stdout());
    }

    @Test
    void aProviderWithoutItsKeyNamesItsVariable() throws Exception {
        env.remove("OPENAI_API_KEY");
        env.remove("OPENAI_BASE_URL");
        env.remove("OPENAI_MODEL");
        env.put("LLM_PROVIDER", "DEEPSEEK");
        AgentRun.Result r = run(null, "-p", "hello");
        assertEquals(1, r.exit(), r.stderr());
        assertTrue(r.stderr().contains("set DEEPSEEK_API_KEY"), r.stderr());
    }

    @Test
    void anUnknownHostIsNotARefusedConnection() throws Exception {
        env.put("OPENAI_BASE_URL", "http://no-such-host.invalid/v1"); // .invalid never resolves (RFC 6761)
        AgentRun.Result r = run(null, "-p", "hello");
        assertEquals(1, r.exit(), r.stderr());
        assertTrue(r.stderr().contains("Could not find the model provider's host"), r.stderr());
        assertFalse(r.stderr().contains("refused"), r.stderr());
    }

    @Test
    void aSessionIsSavedWithItsFirstPromptSoASlashCommandAloneLeavesNone() throws Exception {
        AgentRun.Result help = run(null, "-p", "/help");
        assertEquals(0, help.exit(), help.stderr());
        assertTrue(help.stdout().contains("Commands:"), help.stdout());
        AgentRun.Result none = run(null, "sessions", "list", "--all");
        assertTrue(none.stdout().startsWith("No sessions"), "a command the agent answered itself is no session:\n" + none.stdout());
        model.enqueue(Script.textReply("fine"));
        AgentRun.Result asked = run(null, "-p", "the real question");
        assertEquals(0, asked.exit(), asked.stderr());
        AgentRun.Result list = run(null, "sessions", "list", "--all");
        assertTrue(list.stdout().contains("the real question"), "the first question names it:\n" + list.stdout());
        assertEquals(2, list.stdout().strip().lines().count(), "a heading and one session:\n" + list.stdout());
    }

    @Test
    void aToolCallIdReusedInALaterTurnKeepsEachCallApart() throws Exception {
        Files.writeString(ws.resolve("first.txt"), "one\n");
        Files.writeString(ws.resolve("second.txt"), "two\n");
        // as some OpenAI-compatible servers do: the calls of every turn are numbered from call_0
        model.enqueue(Script.reply().toolCall("call_0", "read_file", "{\"path\":\"first.txt\"}").finish("tool_calls"),
                Script.textReply("read one"));
        String id = json(run(null, "-p", "read the 1st", "--output-format", "json").stdout()).path("sessionId").asText();
        model.enqueue(Script.reply().toolCall("call_0", "read_file", "{\"path\":\"second.txt\"}").finish("tool_calls"),
                Script.textReply("read two"));
        assertEquals(0, run(null, "-c", "-p", "read the 2nd").exit());
        for (String[] args : new String[][]{{"sessions", "show", id}, {"sessions", "export", id, "--format", "markdown"}}) {
            String shown = run(null, args).stdout();
            int secondTurn = shown.indexOf("read the 2nd");
            assertTrue(secondTurn > 0, shown);
            String first = shown.substring(0, secondTurn), second = shown.substring(secondTurn);
            assertTrue(first.contains("first.txt") && !first.contains("second.txt"), "the first turn's own call:\n" + shown);
            assertTrue(second.contains("second.txt") && !second.contains("first.txt"), "the second turn's own call:\n" + shown);
        }
    }

    @Test
    void noProviderNamesTheVariables() throws Exception {
        env.remove("OPENAI_API_KEY");
        env.remove("OPENAI_BASE_URL");
        env.remove("OPENAI_MODEL");
        env.remove("LLM_PROVIDER");
        AgentRun.Result r = run(null, "-p", "hello");
        assertEquals(1, r.exit(), r.stderr());
        assertEquals(1, r.stderr().strip().lines().count(), "one line: " + r.stderr());
        assertTrue(r.stderr().contains("OPENAI_API_KEY"), r.stderr());
        assertEquals(0, model.requests().size());
    }

    @Test
    void usageErrorsExitTwo() throws Exception {
        assertEquals(2, run(null, "-p", "x", "--output-format", "xml").exit());
        assertEquals(2, run(null, "-p", "x", "--mode", "yolo").exit());
        assertEquals(2, run(null, "-p").exit());
        AgentRun.Result none = run("", "--output-format", "json");
        assertEquals(2, none.exit());
        assertTrue(none.stderr().contains("-p PROMPT"), none.stderr());
        assertEquals(0, model.requests().size(), "no usage error reached the model");
    }

    @Test
    void aBadArgumentIsOneLineAndAShortUsage() throws Exception {
        for (String[] args : new String[][]{{"--bogus"}, {"sessions", "lst"}, {"--mode", "yolo"}}) {
            AgentRun.Result r = run(null, args);
            assertEquals(2, r.exit(), r.stderr());
            List<String> lines = r.stderr().strip().lines().toList();
            assertTrue(lines.size() <= 3, "one line, the usage, where the help is; not the whole help:\n" + r.stderr());
            assertTrue(lines.get(0).startsWith("agent") && lines.get(0).contains(args[args.length - 1]), r.stderr());
            assertTrue(r.stderr().contains("Usage: agent"), r.stderr());
        }
    }

    @Test
    void aQuestionWithoutATerminalIsAnsweredAsWithPrint() throws Exception {
        model.enqueue(Script.textReply("answered"));
        AgentRun.Result r = run(null, "what", "is", "this?");
        assertEquals(0, r.exit(), r.stderr());
        assertEquals("answered\n", r.stdout());
        assertEquals("what is this?", model.requests().get(0).lastUserMessage());
    }

    @Test
    void helpSummariesAreWholeSentences() throws Exception {
        AgentRun.Result r = run(null, "--help");
        assertEquals(0, r.exit(), r.stderr());
        String commands = r.stdout().substring(r.stdout().indexOf("Commands:\n") + "Commands:\n".length());
        commands = commands.substring(0, commands.indexOf("\n\n"));
        // an entry is "  name  Summary…" and its continuation lines
        for (String entry : commands.split("\n(?=  \\S)")) {
            String summary = entry.strip().replaceAll("\\s+", " ").replaceFirst("^\\S+ ", "");
            assertTrue(Character.isUpperCase(summary.charAt(0)) && summary.endsWith("."), "a whole sentence: " + summary);
        }
    }

    @Test
    void anUnknownModelIsAUsageError() throws Exception {
        AgentRun.Result r = run(null, "-p", "x", "--model", "nosuchprovider/m");
        assertEquals(2, r.exit(), r.stderr());
        assertTrue(r.stderr().contains("nosuchprovider"), r.stderr());
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(AgentRun.Sigint.class)
    void interruptedExits130(AgentRun.Sigint sigint) throws Exception {
        model.enqueue(Script.reply().text("start").hang());
        AgentRun run = AgentRun.start(sigint, ws, env, null, "-p", "take long");
        assertFalse(model.awaitRequests(1, Duration.ofSeconds(30)).isEmpty(), "the model was asked");
        run.interrupt();
        AgentRun.Result r = run.await(Duration.ofSeconds(30));
        assertEquals(130, r.exit(), r.stderr());
    }

    @Test
    void continueAndResumeCarryTheConversation() throws Exception {
        model.enqueue(Script.textReply("first answer"));
        String id = json(run(null, "-p", "remember PINEAPPLE", "--output-format", "json").stdout()).path("sessionId").asText();
        model.enqueue(Script.textReply("second"));
        AgentRun.Result c = run(null, "-c", "-p", "what fruit?", "--output-format", "json");
        assertEquals(0, c.exit(), c.stderr());
        assertEquals(id, json(c.stdout()).path("sessionId").asText(), "--continue took the latest session of the directory");
        assertTrue(model.requests().get(1).messages().toString().contains("PINEAPPLE"), "the history went to the model");
        model.enqueue(Script.textReply("third"));
        AgentRun.Result r = run(null, "-r", id.substring(0, 8), "-p", "and again?", "--output-format", "json");
        assertEquals(0, r.exit(), r.stderr());
        assertEquals(id, json(r.stdout()).path("sessionId").asText());
        assertTrue(model.requests().get(2).messages().toString().contains("second"));
        AgentRun.Result bad = run(null, "-r", "no-such-session", "-p", "x");
        assertEquals(1, bad.exit());
        assertTrue(bad.stderr().startsWith("agent: "), bad.stderr());
    }

    @Test
    void aHeadlessSessionLoadsInAnEditorAndBack() throws Exception {
        model.enqueue(Script.textReply("made in the terminal"));
        String id = json(run(null, "-p", "terminal question", "--output-format", "json").stdout()).path("sessionId").asText();

        Map<String, String> acpEnv = new HashMap<>(env);
        String editorAnswer;
        try (AgentProcess editor = AgentProcess.start(acpEnv, "--acp")) {
            editor.call("initialize", Json.object().put("protocolVersion", 1));
            JsonNode list = editor.call("session/list", Json.object().put("cwd", ws.toString())).path("result").path("sessions");
            assertTrue(list.toString().contains(id), "the editor lists the terminal's session: " + list);
            ObjectNode load = Json.object().put("sessionId", id).put("cwd", ws.toString());
            load.putArray("mcpServers");
            JsonNode loaded = editor.call("session/load", load);
            assertTrue(loaded.has("result"), loaded.toString());
            String replay = editor.stdoutLines().toString();
            assertTrue(replay.contains("terminal question") && replay.contains("made in the terminal"), "replayed: " + replay);
            model.enqueue(Script.textReply("made in the editor"));
            ObjectNode p = Json.object().put("sessionId", id);
            p.putArray("prompt").addObject().put("type", "text").put("text", "editor question");
            assertEquals("end_turn", editor.call("session/prompt", p, Duration.ofSeconds(30)).path("result").path("stopReason").asText());
            editorAnswer = "made in the editor";
        }
        model.enqueue(Script.textReply("back in the terminal"));
        AgentRun.Result r = run(null, "-r", id, "-p", "terminal again");
        assertEquals(0, r.exit(), r.stderr());
        String history = model.requests().get(model.requests().size() - 1).messages().toString();
        assertTrue(history.contains("editor question") && history.contains(editorAnswer), history);
    }
}
