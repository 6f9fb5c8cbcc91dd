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

/** Through ACP: what the model saves with {@code save_memory} (the editor approving it), a later agent process's session is told. */
class AcpMemoryIT {
    @TempDir
    Path dir;
    FakeModelServer model;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
    }

    @AfterEach
    void stop() {
        model.close();
    }

    private AgentProcess agent(List<JsonNode> questions) throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        AgentProcess agent = AgentProcess.start(env, "--acp");
        agent.onClientRequest("session/request_permission", params -> {
            questions.add(params);
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
            return r;
        });
        assertTrue(agent.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        return agent;
    }

    private static String newSession(AgentProcess agent, Path cwd) throws InterruptedException {
        return agent.call("session/new", Json.object().put("cwd", cwd.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                .path("result").path("sessionId").asText();
    }

    @Test
    void aFactSavedInOneSessionIsInTheNextSessionsSystemPrompt() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        List<JsonNode> questions = new CopyOnWriteArrayList<>();
        try (AgentProcess first = agent(questions)) {
            String id = newSession(first, ws);
            model.enqueue(Script.reply().toolCall("m1", "save_memory",
                    "{\"scope\":\"project\",\"fact\":\"Deploys go through make release\"}").finish("tool_calls"),
                    Script.textReply("Noted."));
            assertTrue(first.call("session/prompt", AgentProcess.prompt(id, "remember how we deploy"), Duration.ofSeconds(60)).has("result"));
            assertEquals(1, questions.size(), "the editor is asked before the memory changes");
            assertTrue(questions.getFirst().path("toolCall").path("title").asText().contains("Deploys go through make release"));
            assertEquals(List.of(), first.violations(), "stdout must hold only JSON-RPC lines");
        }
        assertFalse(model.requests().getFirst().body().path("messages").get(0).path("content").asText().contains("make release"));

        try (AgentProcess next = agent(questions)) {
            String id = newSession(next, ws);
            model.enqueue(Script.textReply("ok"));
            assertTrue(next.call("session/prompt", AgentProcess.prompt(id, "deploy it"), Duration.ofSeconds(60)).has("result"));
            String system = model.requests().getLast().body().path("messages").get(0).path("content").asText();
            assertTrue(system.contains("# Memory") && system.contains("- Deploys go through make release"), system);
            JsonNode commands = next.updates(id).stream()
                    .filter(u -> "available_commands_update".equals(u.path("sessionUpdate").asText())).findFirst().orElseThrow();
            assertTrue(commands.toString().contains("\"memory\""), "the editor is offered /memory: " + commands);
            assertEquals(List.of(), next.violations(), "stdout must hold only JSON-RPC lines");
        }
    }
}
