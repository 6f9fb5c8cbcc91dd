package cn.agentao.agent.tools;

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
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.*;

/** Tools through the real agent: what the user sees, what they are asked, and what the client is asked to do. */
class ToolsIT {
    @TempDir
    Path dir;
    Path ws;
    FakeModelServer model;
    AgentProcess agent;
    String id;
    final List<JsonNode> permissionQuestions = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        ws = Files.createDirectories(dir.resolve("ws"));
    }

    void startAgent(ObjectNode clientCapabilities, String answer) throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        agent = AgentProcess.start(env, "--acp");
        if (answer != null) {
            agent.onClientRequest("session/request_permission", params -> {
                permissionQuestions.add(params);
                ObjectNode r = Json.object();
                r.putObject("outcome").put("outcome", "selected").put("optionId", answer);
                return r;
            });
        }
        ObjectNode init = Json.object().put("protocolVersion", 1);
        init.set("clientCapabilities", clientCapabilities);
        assertTrue(agent.call("initialize", init).has("result"));
        id = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                .path("result").path("sessionId").asText();
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            assertEquals(List.of(), agent.violations());
            agent.close();
        }
        model.close();
    }

    ObjectNode prompt(String text) {
        ObjectNode p = Json.object().put("sessionId", id);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    String run(String text) throws Exception {
        JsonNode r = agent.call("session/prompt", prompt(text), Duration.ofSeconds(30));
        assertTrue(r.has("result"), r.toString());
        return r.path("result").path("stopReason").asText();
    }

    List<JsonNode> updates(String kind) {
        return agent.updates(id).stream().filter(u -> kind.equals(u.path("sessionUpdate").asText())).toList();
    }

    JsonNode finalUpdate(String toolCallId) {
        JsonNode last = null;
        for (JsonNode u : updates("tool_call_update")) {
            if (toolCallId.equals(u.path("toolCallId").asText()) && u.has("status")) last = u;
        }
        return last;
    }

    /** The model asks for one tool call, then answers "done" once it has the result. */
    void modelCalls(String callId, String tool, String args) {
        model.enqueue(Script.reply().toolCall(callId, tool, args, 3), Script.textReply("done"));
    }

    String toolResultSentToModel(String callId) {
        for (JsonNode m : model.lastRequest().messages()) {
            if ("tool".equals(m.path("role").asText()) && callId.equals(m.path("tool_call_id").asText())) return m.path("content").asText();
        }
        return null;
    }

    @Test
    void askingRoundTripUsesTheSameToolCallIdAndTheFourStandardOptions() throws Exception {
        startAgent(Json.object(), "allow_once");
        modelCalls("call_1", "run_shell_command", "{\"command\":\"touch made.txt\",\"sandbox\":false}");
        assertEquals("end_turn", run("make a file"));
        JsonNode toolCall = updates("tool_call").get(0);
        assertEquals("call_1", toolCall.path("toolCallId").asText());
        assertEquals("execute", toolCall.path("kind").asText());
        assertEquals("pending", toolCall.path("status").asText());
        assertEquals(1, permissionQuestions.size());
        JsonNode q = permissionQuestions.get(0);
        assertEquals("call_1", q.path("toolCall").path("toolCallId").asText());
        List<String> kinds = new ArrayList<>();
        q.path("options").forEach(o -> kinds.add(o.path("kind").asText()));
        assertEquals(List.of("allow_once", "allow_always", "reject_once", "reject_always"), kinds);
        assertTrue(Files.exists(ws.resolve("made.txt")));
        assertEquals("completed", finalUpdate("call_1").path("status").asText());
        assertNotNull(toolResultSentToModel("call_1"));
        // the question came after the pending tool_call
        List<JsonNode> all = agent.messages();
        int callAt = -1, askAt = -1;
        for (int i = 0; i < all.size(); i++) {
            if ("tool_call".equals(all.get(i).path("params").path("update").path("sessionUpdate").asText())) callAt = i;
            if ("session/request_permission".equals(all.get(i).path("method").asText())) askAt = i;
        }
        assertTrue(callAt >= 0 && callAt < askAt);
    }

    @Test
    void rejectedToolDoesNotRunAndTheModelIsTold() throws Exception {
        startAgent(Json.object(), "reject_once");
        modelCalls("call_r", "run_shell_command", "{\"command\":\"touch nope.txt\",\"sandbox\":false}");
        assertEquals("end_turn", run("make a file"));
        assertFalse(Files.exists(ws.resolve("nope.txt")));
        assertEquals("failed", finalUpdate("call_r").path("status").asText());
        assertTrue(toolResultSentToModel("call_r").contains("rejected"));
    }

    @Test
    void alwaysAllowIsRememberedAndSurvivesALoad() throws Exception {
        startAgent(Json.object(), "allow_always");
        modelCalls("c1", "run_shell_command", "{\"command\":\"touch a.txt\",\"sandbox\":false}");
        run("one");
        modelCalls("c2", "run_shell_command", "{\"command\":\"touch b.txt\",\"sandbox\":false}");
        run("two");
        assertEquals(1, permissionQuestions.size(), "asked once, then remembered");
        assertTrue(Files.exists(ws.resolve("b.txt")));
        agent.call("session/close", Json.object().put("sessionId", id));
        assertTrue(agent.call("session/load", Json.object().put("sessionId", id).put("cwd", ws.toString())
                .set("mcpServers", Json.mapper().createArrayNode())).has("result"));
        modelCalls("c3", "run_shell_command", "{\"command\":\"touch c.txt\",\"sandbox\":false}");
        run("three");
        assertEquals(1, permissionQuestions.size(), "the remembered answer came back with the session");
        assertTrue(Files.exists(ws.resolve("c.txt")));
    }

    @Test
    void readOnlyModeDeniesWritesWithoutAsking() throws Exception {
        startAgent(Json.object(), "allow_once");
        agent.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "read-only"));
        modelCalls("w1", "write_file", "{\"path\":\"x.txt\",\"content\":\"hi\"}");
        run("write");
        assertFalse(Files.exists(ws.resolve("x.txt")));
        assertTrue(permissionQuestions.isEmpty(), "read-only denies; it does not ask");
        assertEquals("failed", finalUpdate("w1").path("status").asText());
        assertTrue(toolResultSentToModel("w1").contains("denied"), toolResultSentToModel("w1"));
    }

    @Test
    void writingOutsideTheWorkspaceIsNeverSilent() throws Exception {
        startAgent(Json.object(), "reject_once");
        Path outside = dir.resolve("outside.txt");
        modelCalls("o1", "write_file", "{\"path\":\"" + outside + "\",\"content\":\"x\"}");
        run("write outside");
        assertEquals(1, permissionQuestions.size());
        assertFalse(Files.exists(outside));
        modelCalls("o2", "write_file", "{\"path\":\"../outside.txt\",\"content\":\"x\"}");
        run("write outside again");
        assertEquals(2, permissionQuestions.size());
        assertFalse(Files.exists(outside));
    }

    @Test
    void editsShowDiffsReadsShowLocationsAndTodosShowAPlan() throws Exception {
        startAgent(Json.object(), "allow_once");
        Files.writeString(ws.resolve("a.txt"), "hello world\nsecond\n");
        model.enqueue(Script.reply().toolCall("r1", "read_file", "{\"path\":\"a.txt\"}"),
                Script.reply().toolCall("e1", "edit", "{\"path\":\"a.txt\",\"old_string\":\"world\",\"new_string\":\"there\"}"),
                Script.reply().toolCall("t1", "todo_write", "{\"todos\":[{\"content\":\"Fix it\",\"status\":\"in_progress\"},{\"content\":\"Test it\",\"status\":\"pending\"}]}"),
                Script.textReply("done"));
        assertEquals("end_turn", run("edit the file"));
        assertEquals("hello there\nsecond\n", Files.readString(ws.resolve("a.txt")));
        JsonNode read = updates("tool_call").get(0);
        assertEquals("read", read.path("kind").asText());
        assertEquals(ws.resolve("a.txt").toString(), read.path("locations").get(0).path("path").asText());
        JsonNode diff = finalUpdate("e1").path("content").get(0);
        assertEquals("diff", diff.path("type").asText(), finalUpdate("e1").toString());
        assertTrue(diff.path("oldText").asText().contains("hello world"));
        assertTrue(diff.path("newText").asText().contains("hello there"));
        JsonNode plan = updates("plan").get(0);
        assertEquals("Fix it", plan.path("entries").get(0).path("content").asText());
        assertEquals("in_progress", plan.path("entries").get(0).path("status").asText());
    }

    @Test
    void shellOutputStreamsWhileTheCommandRuns() throws Exception {
        startAgent(Json.object(), "allow_once");
        agent.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "full-access"));
        modelCalls("s1", "run_shell_command", "{\"command\":\"for i in 1 2 3; do echo line$i; sleep 0.3; done\"}");
        run("count");
        List<JsonNode> progress = updates("tool_call_update").stream()
                .filter(u -> "s1".equals(u.path("toolCallId").asText()) && u.path("content").toString().contains("line1")).toList();
        assertTrue(progress.size() >= 2, "output arrived in pieces: " + progress);
        assertTrue(finalUpdate("s1").path("content").toString().contains("line3"));
    }

    @Test
    void aClientsRefusalToWriteKeepsItsReason() throws Exception {
        ObjectNode caps = Json.object();
        caps.putObject("fs").put("readTextFile", true).put("writeTextFile", true);
        startAgent(caps, "allow_once");
        // as the ACP SDKs answer when the editor's handler fails: "Internal error", the reason in data.details
        ObjectNode refusal = Json.object().put("code", -32603).put("message", "Internal error");
        refusal.putObject("data").put("details", "the buffer g.txt is read-only");
        agent.refuseClientRequest("fs/write_text_file", refusal);
        model.enqueue(Script.reply().toolCall("w", "write_file", "{\"path\":\"g.txt\",\"content\":\"new\"}"),
                Script.textReply("could not"));
        assertEquals("end_turn", run("write g.txt"));
        String told = model.requests().get(1).messages().toString();
        assertTrue(told.contains("the buffer g.txt is read-only"), "the model hears the editor's reason: " + told);
        assertTrue(finalUpdate("w").toString().contains("the buffer g.txt is read-only"), "and so does the editor's user");
        assertFalse(Files.exists(ws.resolve("g.txt")));
    }

    @Test
    void aClientThatAdvertisesFsAndTerminalDoesTheWork() throws Exception {
        List<String> calls = new CopyOnWriteArrayList<>();
        Map<String, String> buffers = new java.util.concurrent.ConcurrentHashMap<>();
        ObjectNode caps = Json.object();
        caps.putObject("fs").put("readTextFile", true).put("writeTextFile", true);
        caps.put("terminal", true);
        startAgent(caps, "allow_once");
        agent.onClientRequest("fs/read_text_file", p -> { calls.add("read " + p.path("path").asText()); return Json.object().put("content", "unsaved buffer text\n"); });
        agent.onClientRequest("fs/write_text_file", p -> { calls.add("write " + p.path("path").asText()); buffers.put(p.path("path").asText(), p.path("content").asText()); return Json.object(); });
        agent.onClientRequest("terminal/create", p -> { calls.add("create " + p.path("command").asText()); return Json.object().put("terminalId", "term-1"); });
        agent.onClientRequest("terminal/wait_for_exit", p -> { calls.add("wait"); return Json.object().put("exitCode", 0); });
        agent.onClientRequest("terminal/output", p -> { calls.add("output"); return Json.object().put("output", "from the editor\n").put("truncated", false).set("exitStatus", Json.object().put("exitCode", 0)); });
        agent.onClientRequest("terminal/release", p -> { calls.add("release " + p.path("terminalId").asText()); return Json.object(); });
        Files.writeString(ws.resolve("f.txt"), "disk text\n");
        model.enqueue(Script.reply().toolCall("r", "read_file", "{\"path\":\"f.txt\"}"),
                Script.reply().toolCall("w", "write_file", "{\"path\":\"g.txt\",\"content\":\"new\"}"),
                Script.reply().toolCall("t", "run_shell_command", "{\"command\":\"make test\",\"sandbox\":false}"),
                Script.textReply("done"));
        assertEquals("end_turn", run("work"));
        assertTrue(calls.contains("read " + ws.resolve("f.txt")), calls.toString());
        assertTrue(calls.contains("write " + ws.resolve("g.txt")), calls.toString());
        assertFalse(Files.exists(ws.resolve("g.txt")), "the write went to the editor, not the disk");
        assertTrue(calls.stream().anyMatch(c -> c.startsWith("create ")), calls.toString());
        assertTrue(calls.contains("release term-1"), "every terminal is released: " + calls);
        assertTrue(toolResultSentToModel("t") != null);
        String sent = model.requests().get(1).messages().toString();
        assertTrue(sent.contains("unsaved buffer text"), "the editor's buffer is the truth");
        JsonNode term = finalUpdate("t").path("content");
        assertTrue(term.toString().contains("\"terminal\""), term.toString());
    }

    @Test
    void noClientMethodIsCalledThatTheClientDidNotAdvertise() throws Exception {
        startAgent(Json.object(), "allow_once");
        Files.writeString(ws.resolve("f.txt"), "disk text\n");
        agent.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "full-access"));
        model.enqueue(Script.reply().toolCall("r", "read_file", "{\"path\":\"f.txt\"}"),
                Script.reply().toolCall("t", "run_shell_command", "{\"command\":\"echo hi\"}"),
                Script.reply().toolCall("q", "ask_user", "{\"question\":\"Which one?\"}"),
                Script.textReply("done"));
        run("work");
        List<String> methods = agent.messages().stream().filter(m -> m.has("method") && m.has("id"))
                .map(m -> m.path("method").asText()).toList();
        assertEquals(List.of(), methods, "no fs/, terminal/ or ask_user requests");
        assertTrue(toolResultSentToModel("q").contains("(user unavailable)"), toolResultSentToModel("q"));
        assertTrue(model.requests().get(1).messages().toString().contains("disk text"));
    }

    @Test
    void cancelWhileAskingWithdrawsTheQuestionAndAnswersCancelled() throws Exception {
        startAgent(Json.object(), null); // the client never answers
        modelCalls("p1", "run_shell_command", "{\"command\":\"touch late.txt\",\"sandbox\":false}");
        long rid = agent.start("session/prompt", prompt("go"));
        JsonNode question = agent.await(m -> "session/request_permission".equals(m.path("method").asText()), Duration.ofSeconds(30));
        agent.notify("session/cancel", Json.object().put("sessionId", id));
        JsonNode response = agent.awaitResponse(rid, Duration.ofSeconds(30));
        assertEquals("cancelled", response.path("result").path("stopReason").asText());
        JsonNode withdrawn = agent.await(m -> "$/cancel_request".equals(m.path("method").asText()), Duration.ofSeconds(30));
        assertEquals(question.path("id").asLong(), withdrawn.path("params").path("requestId").asLong());
        assertEquals("failed", finalUpdate("p1").path("status").asText());
        assertFalse(Files.exists(ws.resolve("late.txt")));
        // the client's late answer is harmless and the session goes on
        ObjectNode late = Json.object().put("jsonrpc", "2.0");
        late.set("id", question.get("id"));
        late.putObject("result").putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
        agent.send(late);
        model.enqueue(Script.textReply("next"));
        assertEquals("end_turn", run("next"));
        assertFalse(Files.exists(ws.resolve("late.txt")));
    }

    @Test
    void aClientThatDisconnectsMidQuestionLosesNothing() throws Exception {
        startAgent(Json.object(), null);
        model.enqueue(Script.textReply("first answer"));
        run("first");
        modelCalls("d1", "run_shell_command", "{\"command\":\"touch never.txt\",\"sandbox\":false}");
        agent.start("session/prompt", prompt("second"));
        agent.await(m -> "session/request_permission".equals(m.path("method").asText()), Duration.ofSeconds(30));
        agent.closeStdin();
        assertEquals(0, agent.awaitExit(Duration.ofSeconds(30)));
        assertFalse(Files.exists(ws.resolve("never.txt")));
        AgentProcess again = AgentProcess.start(Map.of("OPENAI_API_KEY", "k", "AGENT_SESSIONS_DIR", dir.resolve("store").toString()), "--acp");
        try {
            again.call("initialize", Json.object().put("protocolVersion", 1));
            JsonNode r = again.call("session/load", Json.object().put("sessionId", id).put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()));
            assertTrue(r.has("result"), r.toString());
            List<JsonNode> replay = again.updates(id);
            assertTrue(replay.stream().anyMatch(u -> "first answer".equals(u.path("content").path("text").asText())));
            assertTrue(replay.stream().anyMatch(u -> "second".equals(u.path("content").path("text").asText())));
            JsonNode call = replay.stream().filter(u -> "tool_call".equals(u.path("sessionUpdate").asText())).findFirst().orElseThrow();
            assertEquals("failed", call.path("status").asText());
        } finally {
            again.close();
        }
    }

    @Test
    void aSandboxedCommandRunsHereEvenWhenTheClientHasATerminal() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(cn.agentao.agent.sandbox.Sandboxes.fromEnvironment(System.getenv()).available(),
                "a working sandbox");
        List<String> calls = new CopyOnWriteArrayList<>();
        startAgent(Json.object().put("terminal", true), "allow_once");
        agent.onClientRequest("terminal/create", p -> { calls.add("create"); return Json.object().put("terminalId", "term-1"); });
        agent.onClientRequest("terminal/wait_for_exit", p -> Json.object().put("exitCode", 0));
        agent.onClientRequest("terminal/output", p -> Json.object().put("output", "").put("truncated", false));
        agent.onClientRequest("terminal/release", p -> Json.object());
        modelCalls("sb", "run_shell_command", "{\"command\":\"echo in the sandbox > made.txt && cat made.txt\"}");
        run("work");
        assertEquals(List.of(), calls, "no client terminal for a sandboxed command");
        assertTrue(permissionQuestions.isEmpty(), "workspace-write runs it in the sandbox without a question");
        assertEquals("in the sandbox\n", Files.readString(ws.resolve("made.txt")));
        assertTrue(finalUpdate("sb").path("content").toString().contains("in the sandbox"), "its output is the tool call's content");
        assertTrue(finalUpdate("sb").path("rawOutput").path("sandboxed").asBoolean(), finalUpdate("sb").toString());
    }
}
