package cn.agentao.agent.door.acp;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.AgentRun;
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

import static org.junit.jupiter.api.Assertions.*;

/**
 * Hooks and skills through a real {@code agent --acp} process: a user's {@code PreToolUse} hook refusing a command, a
 * trusted project's skill offered to the editor and read by the model.
 */
class AcpHooksSkillsIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    Map<String, String> env;
    Path ws;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        ws = Files.createDirectories(dir.resolve("ws"));
        env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("XDG_DATA_HOME", dir.resolve("data").toString());
        env.put("XDG_STATE_HOME", dir.resolve("state").toString());
    }

    @AfterEach
    void stop() {
        model.close();
    }

    private AgentProcess agent() throws Exception {
        AgentProcess agent = AgentProcess.start(env, "--acp");
        agent.onClientRequest("session/request_permission", params -> {
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
            return r;
        });
        assertTrue(agent.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        return agent;
    }

    private String newSession(AgentProcess agent) throws InterruptedException {
        return agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                .path("result").path("sessionId").asText();
    }

    @Test
    void aUsersPreToolUseHookDeniesAShellCommandAndTheModelIsToldWhy() throws Exception {
        Path payload = dir.resolve("payload.json");
        Path config = Files.createDirectories(dir.resolve("config/agent"));
        Files.writeString(config.resolve("hooks.json"), """
                {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
                  "cat > '%s'; echo '{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",\\"permissionDecision\\":\\"deny\\",\\"permissionDecisionReason\\":\\"HOOK-REASON: use make clean\\"}}'"}]}]}}
                """.formatted(payload));
        try (AgentProcess agent = agent()) {
            String id = newSession(agent);
            model.enqueue(Script.reply().toolCall("c1", "run_shell_command", "{\"command\":\"touch ran.txt\"}").finish("tool_calls"),
                    Script.textReply("Understood."));
            assertTrue(agent.call("session/prompt", AgentProcess.prompt(id, "clean up"), Duration.ofSeconds(60)).has("result"));
            assertEquals(2, model.requests().size());
            String next = model.requests().get(1).messages().toString();
            assertTrue(next.contains("HOOK-REASON: use make clean"), "the model is told the hook's reason: " + next);
            assertFalse(Files.exists(ws.resolve("ran.txt")), "the denied command did not run");
            assertTrue(Files.readString(payload).contains("touch ran.txt"), "the hook was given the call");
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC lines");
        }
    }

    @Test
    void aTrustedProjectsSkillIsOfferedAndItsBodyReachesTheModel() throws Exception {
        Path skill = Files.createDirectories(ws.resolve(".agent/skills/release-notes"));
        Files.writeString(skill.resolve("SKILL.md"), """
                ---
                name: release-notes
                description: Write release notes from the git log
                ---
                SKILL-BODY: group the commits under Added, Fixed and Changed.
                """);
        assertEquals(0, AgentRun.run(ws, env, "", "trust").exit());
        try (AgentProcess agent = agent()) {
            String id = newSession(agent);
            JsonNode offered = agent.await(m -> m.path("params").path("sessionId").asText().equals(id)
                    && m.path("params").path("update").path("sessionUpdate").asText().equals("available_commands_update")
                    && m.toString().contains("\"release-notes\""), Duration.ofSeconds(60));
            assertNotNull(offered, "the editor is offered the skill: " + agent.messages());
            model.enqueue(Script.reply().toolCall("s1", "activate_skill", "{\"name\":\"release-notes\"}").finish("tool_calls"),
                    Script.textReply("Here are the notes."));
            assertTrue(agent.call("session/prompt", AgentProcess.prompt(id, "write release notes"), Duration.ofSeconds(60)).has("result"));
            assertTrue(model.requests().get(0).messages().get(0).toString().contains("release-notes"),
                    "the system prompt lists the skill");
            String next = model.requests().get(1).messages().toString();
            assertTrue(next.contains("SKILL-BODY: group the commits under Added, Fixed and Changed."), next);
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC lines");
        }
    }
}
