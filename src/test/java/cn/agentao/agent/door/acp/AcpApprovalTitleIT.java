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
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.*;

/** The title an editor shows for approval shows every character of the command; the tool's input stays exact. */
class AcpApprovalTitleIT {
    /** Reads as "rm -rf ./build" + a harmless comment in an editor that honours the override; a zero-width space hides in it. */
    static final String COMMAND = "touch ../outside/X #\u202Ed- dliub/. fr- mr\u202C\u200B\u001b[2K";

    @TempDir
    Path dir;
    FakeModelServer model;
    AgentProcess agent;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
    }

    @AfterEach
    void stop() {
        try {
            if (agent != null) assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC lines");
        } finally {
            if (agent != null) agent.close();
            model.close();
        }
    }

    @Test
    void bidiOverridesZeroWidthAndEscapesInAnApprovalTitleAreShown() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(dir.resolve("outside"));
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        agent = AgentProcess.start(env, "--acp");
        List<JsonNode> questions = new CopyOnWriteArrayList<>();
        agent.onClientRequest("session/request_permission", params -> {
            questions.add(params);
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", "reject_once");
            return r;
        });
        assertTrue(agent.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        String id = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                .path("result").path("sessionId").asText();
        model.enqueue(Script.reply().toolCall("t1", "run_shell_command",
                Json.object().put("command", COMMAND).put("sandbox", false).toString()).finish("tool_calls"), Script.textReply("done"));
        ObjectNode prompt = Json.object().put("sessionId", id);
        prompt.putArray("prompt").addObject().put("type", "text").put("text", "go");
        assertTrue(agent.call("session/prompt", prompt, Duration.ofSeconds(60)).has("result"));

        assertEquals(1, questions.size());
        JsonNode asked = questions.get(0).path("toolCall");
        String shown = "touch ../outside/X #<U+202E>d- dliub/. fr- mr<U+202C><U+200B><U+001B>[2K";
        assertTrue(asked.path("title").asText().contains(shown), asked.toString());
        assertEquals(COMMAND, asked.path("rawInput").path("command").asText(), "the tool's input stays exact");
        JsonNode started = agent.updates(id).stream().filter(u -> "tool_call".equals(u.path("sessionUpdate").asText())).findFirst().orElseThrow();
        assertTrue(started.path("title").asText().contains(shown), started.toString());
        for (JsonNode title : List.of(asked.path("title"), started.path("title"))) {
            title.asText().codePoints().forEach(cp -> assertFalse(cp == 0x1b || cp == 0x202E || cp == 0x202C || cp == 0x200B,
                    () -> String.format("a raw U+%04X in %s", cp, title)));
        }
        assertFalse(Files.exists(dir.resolve("outside/X")));
    }
}
