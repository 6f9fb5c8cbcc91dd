package cn.agentao.agent.core;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Prices in config.json give usage_update a cost (cumulative over the session, kept across a load); the context
 * gauge is the last call's context, not a sum; {@code agent sessions show} prints tokens and cost.
 */
class CostIT {
    @TempDir
    Path dir;

    static final String CONFIG = """
            {"providers": {"fake": {"kind": "openai", "baseUrl": "%s", "apiKey": "k", "models": ["priced"]}},
             "default": "fake/priced",
             "prices": {"fake/priced": {"input": 2, "output": 10, "cachedInput": 0.5, "currency": "USD"}}}
            """;

    ObjectNode prompt(String sessionId, String text) {
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    JsonNode lastUsage(AgentProcess agent, String sessionId) {
        List<JsonNode> usage = agent.updates(sessionId).stream()
                .filter(u -> "usage_update".equals(u.path("sessionUpdate").asText())).toList();
        assertFalse(usage.isEmpty(), "a usage_update was sent");
        return usage.get(usage.size() - 1);
    }

    @Test
    void costAddsUpContextDoesNot() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        String sessionId;
        try (FakeModelServer model = FakeModelServer.start();
             AgentProcess agent = AgentProcess.startWithUserConfig(dir, CONFIG.formatted(model.baseUrl()))) {
            agent.call("initialize", Json.object().put("protocolVersion", 1));
            ObjectNode session = Json.object().put("cwd", ws.toString());
            session.putArray("mcpServers");
            sessionId = agent.call("session/new", session).path("result").path("sessionId").asText();

            model.enqueue(Script.reply().text("one").usage(1000, 50, 400));
            agent.call("session/prompt", prompt(sessionId, "first"), Duration.ofSeconds(60));
            JsonNode first = lastUsage(agent, sessionId);
            assertEquals(1050, first.path("used").asLong(), first.toString());
            // (600 × 2 + 400 × 0.5 + 50 × 10) / 1e6
            assertEquals(0.0019, first.path("cost").path("amount").asDouble(), 1e-9, first.toString());
            assertEquals("USD", first.path("cost").path("currency").asText());

            model.enqueue(Script.reply().text("two").usage(1500, 60));
            agent.call("session/prompt", prompt(sessionId, "second"), Duration.ofSeconds(60));
            JsonNode second = lastUsage(agent, sessionId);
            assertEquals(1560, second.path("used").asLong(), "the current context, not 1050 + 1560: " + second);
            assertEquals(0.0019 + 0.0036, second.path("cost").path("amount").asDouble(), 1e-9, second.toString());

            agent.call("session/close", Json.object().put("sessionId", sessionId));
            ObjectNode load = Json.object().put("sessionId", sessionId).put("cwd", ws.toString());
            load.putArray("mcpServers");
            assertTrue(agent.call("session/load", load).has("result"));
            model.enqueue(Script.reply().text("three").usage(100, 10));
            agent.call("session/prompt", prompt(sessionId, "third"), Duration.ofSeconds(60));
            assertEquals(0.0055 + 0.0003, lastUsage(agent, sessionId).path("cost").path("amount").asDouble(), 1e-9,
                    "the session's cost survives a load");
        }
        try (AgentProcess show = AgentProcess.start(Map.of("AGENT_SESSIONS_DIR", dir.resolve("store").toString()),
                "sessions", "show", sessionId)) {
            assertEquals(0, show.awaitExit(Duration.ofSeconds(60)), show.stderr());
            String out = String.join("\n", show.stdoutLines());
            assertTrue(out.contains("Usage: 2,600 tokens in (400 cached), 120 out in 3 model calls; cost 0.0058 USD."), out);
        }
    }

    @Test
    void withoutAPriceThereIsNoCost() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        try (FakeModelServer model = FakeModelServer.start();
             AgentProcess agent = AgentProcess.startWithUserConfig(dir, CONFIG.formatted(model.baseUrl()).replace("fake/priced\": {", "other/model\": {"))) {
            agent.call("initialize", Json.object().put("protocolVersion", 1));
            ObjectNode session = Json.object().put("cwd", ws.toString());
            session.putArray("mcpServers");
            String sessionId = agent.call("session/new", session).path("result").path("sessionId").asText();
            model.enqueue(Script.reply().text("one").usage(1000, 50));
            agent.call("session/prompt", prompt(sessionId, "first"), Duration.ofSeconds(60));
            JsonNode usage = lastUsage(agent, sessionId);
            assertEquals(1050, usage.path("used").asLong());
            assertFalse(usage.hasNonNull("cost"), usage.toString());
        }
    }
}
