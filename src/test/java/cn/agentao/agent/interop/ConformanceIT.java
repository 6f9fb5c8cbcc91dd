package cn.agentao.agent.interop;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** ACP v1 MUSTs (docs/conformance.md) that no other test covers, each against the real process. */
class ConformanceIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    AgentProcess agent;
    Path ws;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("OPENAI_MODEL", "gpt-4o"); // a model that takes images: a prompt's image reaches it as one
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        agent = AgentProcess.start(env, "--acp");
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        JsonNode init = agent.call("initialize", Json.object().put("protocolVersion", 1).set("clientCapabilities", Json.object()));
        assertTrue(init.has("result"), init.toString());
    }

    @AfterEach
    void stop() {
        try {
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC");
        } finally {
            agent.close();
            model.close();
        }
    }

    String newSession() throws Exception {
        ObjectNode p = Json.object().put("cwd", ws.toString());
        p.putArray("mcpServers");
        JsonNode r = agent.call("session/new", p);
        assertTrue(r.has("result"), r.toString());
        return r.path("result").path("sessionId").asText();
    }

    /** CloseSessionRequest: "the agent must cancel any ongoing work (as if session/cancel was called)". */
    @Test
    void closingASessionCancelsItsRunningTurn() throws Exception {
        model.enqueue(Script.reply().text("thinking...").hang());
        String id = newSession();
        ObjectNode prompt = Json.object().put("sessionId", id);
        prompt.putArray("prompt").addObject().put("type", "text").put("text", "work for a long time");
        long rid = agent.start("session/prompt", prompt);
        agent.await(m -> "agent_message_chunk".equals(m.path("params").path("update").path("sessionUpdate").asText()), Duration.ofSeconds(30));
        JsonNode closed = agent.call("session/close", Json.object().put("sessionId", id));
        assertTrue(closed.has("result"), closed.toString());
        JsonNode response = agent.awaitResponse(rid, Duration.ofSeconds(30));
        assertEquals("cancelled", response.path("result").path("stopReason").asText(), response.toString());
        assertTrue(model.lastRequest().awaitClientDisconnect(Duration.ofSeconds(30)), "the model call was stopped");
        JsonNode after = agent.call("session/prompt", prompt);
        assertTrue(after.has("error"), "the session is gone: " + after);
    }

    /**
     * CancelNotification: on session/cancel the agent SHOULD "abort all tool call invocations in progress" and MUST
     * answer stopReason cancelled. A running shell command (no client terminal) is killed, children included.
     */
    @Test
    void cancelAbortsARunningShellCommand() throws Exception {
        model.enqueue(Script.reply().toolCall("call_sleep", "run_shell_command",
                Json.object().put("command", "sleep 300; touch late.txt").toString()), Script.textReply("never"));
        String id = newSession();
        agent.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "full-access")); // runs without asking
        ObjectNode prompt = Json.object().put("sessionId", id);
        prompt.putArray("prompt").addObject().put("type", "text").put("text", "wait for it");
        long rid = agent.start("session/prompt", prompt);
        agent.await(m -> "in_progress".equals(m.path("params").path("update").path("status").asText()), Duration.ofSeconds(30));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos(); // the shell starts when the machine lets it
        while (agent.process().descendants().noneMatch(h -> h.info().commandLine().orElse("").contains("sleep 300"))
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(agent.process().descendants().anyMatch(h -> h.info().commandLine().orElse("").contains("sleep 300")),
                "the command is running");
        agent.notify("session/cancel", Json.object().put("sessionId", id));
        // answered although the command would run for 5 minutes: the cancel ended it
        JsonNode response = agent.awaitResponse(rid, Duration.ofSeconds(60));
        assertEquals("cancelled", response.path("result").path("stopReason").asText(), response.toString());
        String status = null;
        for (JsonNode u : agent.updates(id)) {
            if ("call_sleep".equals(u.path("toolCallId").asText()) && u.has("status")) status = u.path("status").asText();
        }
        assertEquals("failed", status, "the interrupted tool call ends failed");
        long gone = System.nanoTime() + Duration.ofSeconds(30).toNanos(); // killing takes what the machine needs
        while (agent.process().descendants().anyMatch(h -> h.info().commandLine().orElse("").contains("sleep 300"))
                && System.nanoTime() < gone) {
            Thread.sleep(20);
        }
        assertFalse(agent.process().descendants().anyMatch(h -> h.info().commandLine().orElse("").contains("sleep 300")),
                "the command was killed");
        assertFalse(Files.exists(ws.resolve("late.txt")));
    }

    /** PromptRequest.prompt: "the Agent MUST support text and resource_link content blocks". */
    @Test
    void textAndResourceLinkBlocksAreAccepted() throws Exception {
        model.enqueue(Script.textReply("seen"));
        String id = newSession();
        ObjectNode prompt = Json.object().put("sessionId", id);
        prompt.putArray("prompt")
                .add(Json.object().put("type", "text").put("text", "look at this"))
                .add(Json.object().put("type", "resource_link").put("uri", "file://" + ws + "/notes.md").put("name", "notes.md"));
        JsonNode r = agent.call("session/prompt", prompt);
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        String sent = model.lastRequest().messages().toString();
        assertTrue(sent.contains("look at this") && sent.contains("notes.md"), sent);
    }

    /**
     * PromptCapabilities: what initialize advertises (image, embeddedContext) is accepted and reaches the model;
     * what it does not (audio) is refused with -32602.
     */
    @Test
    void advertisedPromptCapabilitiesWork() throws Exception {
        JsonNode caps = agent.call("initialize", Json.object().put("protocolVersion", 1).set("clientCapabilities", Json.object()))
                .path("result").path("agentCapabilities").path("promptCapabilities");
        assertTrue(caps.path("image").asBoolean() && caps.path("embeddedContext").asBoolean() && !caps.path("audio").asBoolean(), caps.toString());
        model.enqueue(Script.textReply("nice picture"));
        String id = newSession();
        String png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
        ObjectNode prompt = Json.object().put("sessionId", id);
        prompt.putArray("prompt")
                .add(Json.object().put("type", "text").put("text", "what is this"))
                .add(Json.object().put("type", "image").put("mimeType", "image/png").put("data", png))
                .add(Json.object().put("type", "resource").set("resource",
                        Json.object().put("uri", "file://" + ws + "/spec.txt").put("mimeType", "text/plain").put("text", "SPEC-CONTENT-42")));
        JsonNode r = agent.call("session/prompt", prompt);
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        String sent = model.lastRequest().messages().toString();
        assertTrue(sent.contains(png) && sent.contains("SPEC-CONTENT-42"), sent);

        ObjectNode audio = Json.object().put("sessionId", id);
        audio.putArray("prompt").add(Json.object().put("type", "audio").put("mimeType", "audio/wav").put("data", "UklGRg=="));
        assertEquals(-32602, agent.call("session/prompt", audio).path("error").path("code").asInt());
    }

    /** RequestId: "The Server MUST reply with the same value in the Response object" (strings, big and negative numbers). */
    @Test
    void responsesCarryTheRequestIdUnchanged() throws Exception {
        List<String> ids = List.of("\"abc\"", "\"\"", "\"\\u00e9\\ud83d\\ude00\"", "-7", "0", "9223372036854775807",
                "123456789012345678901234567890", "\"" + "k".repeat(10_000) + "\"");
        for (String id : ids) {
            agent.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"session/list\",\"params\":{}}");
            JsonNode expected = Json.mapper().readTree(id);
            JsonNode r = agent.await(m -> !m.has("method") && expected.equals(m.get("id")), Duration.ofSeconds(30));
            assertTrue(r.has("result"), r.toString());
        }
    }
}
