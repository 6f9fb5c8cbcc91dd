package cn.agentao.agent.cli;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --log-level debug} tells what happened across a session (requests, model calls, tool decisions, timings), never secrets. */
class DebugLoggingIT {
    @TempDir
    Path dir;

    @Test
    void debugLogFollowsASessionWithoutSecretsOrPrompts() throws Exception {
        try (FakeModelServer model = FakeModelServer.start()) {
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
            String key = env.get("OPENAI_API_KEY");
            Path ws = Files.createDirectories(dir.resolve("ws"));
            try (AgentProcess a = AgentProcess.start(env, "--acp", "--log-level", "debug")) {
                a.call("initialize", Json.object().put("protocolVersion", 1));
                String id = a.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                        .path("result").path("sessionId").asText();
                model.enqueue(Script.reply().toolCall("call_r", "read_file", "{\"path\":\"missing-secret-name.txt\"}"), Script.textReply("done"));
                ObjectNode p = Json.object().put("sessionId", id);
                p.putArray("prompt").addObject().put("type", "text").put("text", "PROMPT-TEXT-MUST-NOT-BE-LOGGED");
                JsonNode r = a.call("session/prompt", p, Duration.ofSeconds(30));
                assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
                a.closeStdin();
                a.awaitExit(Duration.ofSeconds(30));
                String log = a.stderr();
                for (String expected : List.of("<- session/prompt id=", "-> session/new id=", "model call 1", "model call 2",
                        "tool call call_r (read_file) in mode workspace-write: ALLOW", "tool call call_r (read_file) failed in ")) {
                    assertTrue(log.contains(expected), "'" + expected + "' in:\n" + log);
                }
                assertTrue(log.matches("(?s).*session/prompt id=\\d+ answered in \\d+ ms.*"), log);
                // Each line: the local time of day, the level, the logger: "14:03:07.123 [DEBUG] AcpAgent - ...".
                String line = log.lines().filter(l -> l.contains("<- session/prompt id=")).findFirst().orElseThrow();
                assertTrue(line.matches("\\d{2}:\\d{2}:\\d{2}\\.\\d{3} \\[DEBUG\\] \\w+ - .*"), line);
                long logged = java.time.LocalTime.parse(line.substring(0, 12)).toSecondOfDay();
                long apart = Math.abs(java.time.LocalTime.now().toSecondOfDay() - logged);
                assertTrue(Math.min(apart, 86_400 - apart) < 600, "local time of day in " + line);
                assertFalse(log.contains("PROMPT-TEXT-MUST-NOT-BE-LOGGED"), "no prompt text in the log");
                assertTrue(key == null || !log.contains(key), "no API key in the log");
            }
        }
    }

    /** {@code --log-file} is the owner's only, like the session files, whatever the umask; a wider one is narrowed. */
    @Test
    void theLogFileIsReadableByItsOwnerOnly() throws Exception {
        Path created = dir.resolve("new.log");
        Path existing = dir.resolve("existing.log");
        Files.writeString(existing, "an older log\n");
        Files.setPosixFilePermissions(existing, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-r--"));
        for (Path log : List.of(created, existing)) {
            Map<String, String> env = Map.of("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
            ProcessBuilder pb = AgentProcess.command(env, "--acp", "--log-level", "debug", "--log-file", log.toString());
            pb.command().addAll(0, List.of("sh", "-c", "umask 022; exec \"$@\"", "sh")); // a umask that would give 0644
            pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
            Process p = pb.start();
            p.getOutputStream().write((Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
                    .set("params", Json.object().put("protocolVersion", 1)) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            p.getOutputStream().close();
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the agent ends when its input does");
            assertTrue(Files.readString(log).contains("initialize"), "the log was written: " + Files.readString(log));
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(log)), log.toString());
        }
    }
}
