package cn.agentao.agent.core;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
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
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Several providers and models from the user's config.json: the picker, thought level, and compaction. */
class ModelSettingsIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    AgentProcess agent;
    String sessionId;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        agent = AgentProcess.startWithUserConfig(dir, """
                {"providers": {"fake": {"kind": "openai", "baseUrl": "%s", "apiKey": "cfg-secret-key",
                   "models": [{"id": "small", "contextWindow": 400, "reasoningEffort": ["low", "high"]}, "big"]}},
                 "default": "fake/small"}
                """.formatted(model.baseUrl()));
        agent.call("initialize", Json.object().put("protocolVersion", 1));
        Path ws = Files.createDirectories(dir.resolve("ws"));
        JsonNode r = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()));
        assertTrue(r.has("result"), r.toString());
        sessionId = r.path("result").path("sessionId").asText();
        options = r.path("result").path("configOptions");
    }

    JsonNode options;

    @AfterEach
    void stop() {
        try {
            assertFalse(agent.stderr().contains("cfg-secret-key"));
            assertFalse(agent.stdoutLines().stream().anyMatch(l -> l.contains("cfg-secret-key")), "no key on the wire");
        } finally {
            agent.close();
            model.close();
        }
    }

    ObjectNode prompt(String text) {
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    static JsonNode option(JsonNode options, String id) {
        for (JsonNode o : options) if (id.equals(o.path("id").asText())) return o;
        return null;
    }

    @Test
    void pickerListsConfiguredModelsAndThoughtLevelReachesTheProvider() throws Exception {
        JsonNode picker = option(options, "model");
        List<String> values = new ArrayList<>();
        picker.path("options").forEach(o -> values.add(o.path("value").asText()));
        assertEquals(List.of("fake/small", "fake/big"), values);
        assertEquals("fake/small", picker.path("currentValue").asText());
        JsonNode thought = option(options, "thought_level");
        assertNotNull(thought, options.toString());
        assertEquals("thought_level", thought.path("category").asText());

        JsonNode r = agent.call("session/set_config_option", Json.object().put("sessionId", sessionId).put("configId", "thought_level").put("value", "high"));
        assertEquals("high", option(r.path("result").path("configOptions"), "thought_level").path("currentValue").asText());
        model.enqueue(Script.textReply("ok"));
        agent.call("session/prompt", prompt("think"));
        assertEquals("high", model.lastRequest().body().path("reasoning_effort").asText(), model.lastRequest().body().toString());
        assertEquals("Bearer cfg-secret-key", model.lastRequest().header("Authorization"));

        r = agent.call("session/set_config_option", Json.object().put("sessionId", sessionId).put("configId", "model").put("value", "fake/big"));
        assertNull(option(r.path("result").path("configOptions"), "thought_level"), "big takes no reasoning effort");
        model.enqueue(Script.textReply("ok"));
        agent.call("session/prompt", prompt("again"));
        assertEquals("big", model.lastRequest().model());
        assertTrue(model.lastRequest().body().path("reasoning_effort").isMissingNode());
    }

    @Test
    void historyNearTheWindowIsSummarisedByTheModel() throws Exception {
        String longText = "lorem ipsum dolor sit amet ".repeat(60); // ~1,600 characters, ~400 tokens: past 80% of the 400-token window
        model.enqueue(Script.textReply("first answer"), Script.textReply("SUMMARY-OF-EARLIER"), Script.textReply("second answer"));
        agent.call("session/prompt", prompt("FIRST " + longText));
        JsonNode r = agent.call("session/prompt", prompt("SECOND question"), Duration.ofSeconds(30));
        assertEquals("end_turn", r.path("result").path("stopReason").asText());
        List<RecordedRequest> reqs = model.requests();
        assertEquals(3, reqs.size());
        assertTrue(reqs.get(1).messages().toString().contains("Summarise the conversation"), reqs.get(1).messages().toString());
        String last = reqs.get(2).messages().toString();
        assertTrue(last.contains("SUMMARY-OF-EARLIER") && last.contains("SECOND question"), last);
        assertFalse(last.contains("FIRST lorem"), "the summarised turn is no longer sent");
    }

    @Test
    void compactCommandSummarisesOnDemand() throws Exception {
        agent.call("session/set_config_option", Json.object().put("sessionId", sessionId).put("configId", "model").put("value", "fake/big"));
        model.enqueue(Script.textReply("a1"), Script.textReply("a2"), Script.textReply("THE-SUMMARY"), Script.textReply("a3"));
        agent.call("session/prompt", prompt("q1"));
        agent.call("session/prompt", prompt("q2"));
        agent.call("session/prompt", prompt("/compact"));
        agent.call("session/prompt", prompt("q3"));
        String last = model.lastRequest().messages().toString();
        assertTrue(last.contains("THE-SUMMARY") && last.contains("q3"), last);
        assertFalse(last.contains("q1"), last);
    }
}
