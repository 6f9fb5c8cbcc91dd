package cn.agentao.agent.interop;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
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
import java.util.Map;

import static cn.agentao.agent.testing.FakeModelServer.lastUserMessageContains;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The official ACP TypeScript SDK (client() over ndJsonStream) drives the real agent through a whole editor
 * session (interop/sdk-session.mjs); every line the agent writes is validated against the SDK's v1 JSON schema.
 */
class SdkClientIT {
    static final String STREAM = "interop: stream please";
    static final String TOOL = "interop: write a file";
    static final String TOOL_REJECTED = "interop: write refused";
    static final String TOOL_CANCELLED = "interop: write then cancel";
    static final String CANCEL = "interop: talk for long";
    static final String AFTER_RESUME = "interop: after resume";

    @TempDir
    Path dir;
    FakeModelServer model;
    Path ws;

    @BeforeEach
    void start() throws Exception {
        Interop.ensureInstalled();
        model = FakeModelServer.start();
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
    }

    @AfterEach
    void stop() {
        model.close();
    }

    JsonNode runDriver() throws Exception {
        List<String> cmd = Interop.node("sdk-session.mjs", "--cwd", ws.toString(), "--timeout-ms", "100000");
        cmd.add("--expect-permission");
        cmd.addAll(List.of("--", Interop.agentCommand().toString(), "--acp"));
        Interop.Result r = Interop.run(cmd,
                Interop.agentEnvironment(model.openAiEnvironment(), dir), ws, Duration.ofSeconds(120));
        JsonNode summary;
        try {
            summary = Json.mapper().readTree(r.stdout());
        } catch (Exception e) {
            throw new AssertionError("sdk-session.mjs printed no JSON summary (exit " + r.exitCode() + ")\nstdout:\n"
                    + r.stdout() + "\nstderr:\n" + Interop.tail(r.stderr()));
        }
        System.out.println("sdk-session.mjs summary:\n" + summary.toPrettyString());
        if (r.exitCode() != 0 || !summary.path("ok").asBoolean()) {
            fail("the SDK session failed (exit " + r.exitCode() + "): " + summary.path("failures").toPrettyString()
                    + "\nschema violations: " + summary.path("schema").path("violations").toPrettyString()
                    + "\nsummary: " + summary.toPrettyString() + "\ndriver stderr:\n" + Interop.tail(r.stderr()));
        }
        return summary;
    }

    @Test
    void fullSessionThroughTheOfficialSdk() throws Exception {
        model.whenEmptyFail();
        model.when(lastUserMessageContains(STREAM)).replyAlways(Script.reply().delay(30).text("Hello", " from", " the", " fake", " model"));
        // writes outside the workspace are asked every time (docs/permissions.md), so each call asks
        Path outside = Files.createDirectories(dir.resolve("outside"));
        model.when(lastUserMessageContains(TOOL)).reply(
                Script.reply().toolCall("call_w1", "write_file", writeArgs(outside.resolve("hello.txt"))),
                Script.textReply("wrote it"));
        model.when(lastUserMessageContains(TOOL_REJECTED)).reply(
                Script.reply().toolCall("call_w2", "write_file", writeArgs(outside.resolve("refused.txt"))),
                Script.textReply("understood, not written"));
        model.when(lastUserMessageContains(TOOL_CANCELLED)).reply(
                Script.reply().toolCall("call_w3", "write_file", writeArgs(outside.resolve("cancelled.txt"))),
                Script.textReply("should not be asked for"));
        model.when(lastUserMessageContains(CANCEL)).reply(Script.reply().text("first ").hang()); // only the cancel ends it, however slow the machine
        model.when(lastUserMessageContains(AFTER_RESUME)).replyAlways(Script.textReply("resumed fine"));

        JsonNode s = runDriver();
        JsonNode steps = s.path("steps");

        assertEquals(0, s.path("exit").path("code").asInt(-1), "the agent exits 0 at end of input");
        assertEquals(List.of(), texts(s.path("schema").path("violations")), "schema violations");
        assertTrue(s.path("schema").path("agentMessages").asInt() > 20, s.path("schema").toString());

        // what the protocol promises: the whole text, in order, before the response (the driver checks there is no
        // late update); how many chunks carry it depends on timing (text queued behind a busy client is coalesced)
        assertEquals("Hello from the fake model", steps.path("stream").path("text").asText());
        assertFalse(steps.path("stream").path("chunks").isEmpty(), steps.path("stream").toString());
        JsonNode tool = steps.path("tool");
        assertEquals("end_turn", tool.path("stopReason").asText());
        assertEquals(1, tool.path("permissionRequests").size(), tool.toString());
        assertEquals("call_w1", tool.path("permissionRequests").get(0).path("toolCallId").asText(), tool.toString());
        assertEquals("completed", tool.path("final").asText(), tool.toString());
        assertEquals("hi from interop\n", Files.readString(outside.resolve("hello.txt")), "allowed once, so written");
        assertEquals("failed", steps.path("toolRejected").path("final").asText(), steps.path("toolRejected").toString());
        assertFalse(Files.exists(outside.resolve("refused.txt")), "rejected, so not written");
        JsonNode cancelled = steps.path("toolCancelled");
        assertEquals("cancelled", cancelled.path("stopReason").asText(), cancelled.toString());
        assertTrue(cancelled.path("withdrawn").asBoolean(), "the open question was withdrawn: " + cancelled);
        assertFalse(Files.exists(outside.resolve("cancelled.txt")), "cancelled while asking, so not written");
        assertEquals("cancelled", steps.path("cancel").path("stopReason").asText());

        JsonNode load = steps.path("load");
        assertEquals(List.of(STREAM, TOOL, TOOL_REJECTED, TOOL_CANCELLED, CANCEL), texts(load.path("userText")), "replayed user messages");
        assertTrue(load.path("agentText").asText().startsWith("Hello from the fake model"), load.toString());
        assertEquals(0, steps.path("resume").path("replayedMessages").asInt(-1));
        assertEquals("resumed fine", steps.path("resume").path("text").asText());

        // the resumed session kept its history: the model saw the first exchange again
        RecordedRequest last = model.lastRequest();
        assertEquals(AFTER_RESUME, last.lastUserMessage());
        String history = last.messages().toString();
        assertTrue(history.contains(STREAM) && history.contains("Hello from the fake model"), history);
    }

    static String writeArgs(Path path) {
        return Json.object().put("path", path.toString()).put("content", "hi from interop\n").toString();
    }

    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.isTextual() ? n.asText() : n.toString()));
        return out;
    }
}
