package cn.agentao.agent.door.acp;

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
import java.util.List;

import static cn.agentao.agent.door.acp.AcpProtocolIT.assertError;
import static org.junit.jupiter.api.Assertions.*;

/** Agentao's session/list_models and session/set_model, answered as aliases of the model config option. */
class AgentaoModelMethodsIT {
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
                   "models": ["small", {"id": "big", "name": "Big one"}]}},
                 "default": "fake/small"}
                """.formatted(model.baseUrl()));
        agent.call("initialize", Json.object().put("protocolVersion", 1));
        ObjectNode session = Json.object().put("cwd", Files.createDirectories(dir.resolve("ws")).toString());
        session.putArray("mcpServers");
        sessionId = agent.call("session/new", session).path("result").path("sessionId").asText();
        assertFalse(sessionId.isEmpty(), "session/new answered an id");
    }

    @AfterEach
    void stop() {
        try {
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC lines");
            assertFalse(agent.stderr().contains("cfg-secret-key"));
            assertFalse(agent.stdoutLines().stream().anyMatch(l -> l.contains("cfg-secret-key")), "no key on the wire");
        } finally {
            agent.close();
            model.close();
        }
    }

    private ObjectNode prompt(String text) {
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    private JsonNode listModels() throws InterruptedException {
        JsonNode r = agent.call("session/list_models", Json.object().put("sessionId", sessionId));
        assertTrue(r.has("result"), r.toString());
        return r.path("result");
    }

    private JsonNode setModel(String modelId) throws InterruptedException {
        return agent.call("session/set_model", Json.object().put("sessionId", sessionId).put("modelId", modelId));
    }

    private static List<String> ids(JsonNode models) {
        List<String> ids = new ArrayList<>();
        models.path("availableModels").forEach(m -> ids.add(m.path("modelId").asText()));
        return ids;
    }

    @Test
    void listShowsThePickersModelsAndTheCurrentOne() throws Exception {
        JsonNode models = listModels();
        assertEquals(List.of("fake/small", "fake/big"), ids(models));
        assertEquals("fake/small", models.path("currentModelId").asText());
        assertEquals("Big one", models.path("availableModels").get(1).path("name").asText(), models.toString());
    }

    @Test
    void setModelSwitchesTheNextTurnAndTellsTheClient() throws Exception {
        JsonNode r = setModel("fake/big");
        assertTrue(r.has("result"), r.toString());
        JsonNode update = agent.await(m -> sessionId.equals(m.path("params").path("sessionId").asText())
                && "config_option_update".equals(m.path("params").path("update").path("sessionUpdate").asText()), Duration.ofSeconds(30));
        String picked = null;
        for (JsonNode o : update.path("params").path("update").path("configOptions")) {
            if ("model".equals(o.path("id").asText())) picked = o.path("currentValue").asText();
        }
        assertEquals("fake/big", picked, update.toString());
        assertEquals("fake/big", listModels().path("currentModelId").asText());

        model.enqueue(Script.textReply("ok"));
        agent.call("session/prompt", prompt("hello"));
        assertEquals("big", model.lastRequest().model(), model.lastRequest().body().toString());

        // a bare model keeps the provider, as the config option does
        assertTrue(setModel("small").has("result"));
        model.enqueue(Script.textReply("ok"));
        agent.call("session/prompt", prompt("again"));
        assertEquals("small", model.lastRequest().model());
    }

    @Test
    void badIdsAndParamsAreRefusedAndChangeNothing() throws Exception {
        assertError(setModel("nosuch/model"), -32600, "cannot resolve provider 'nosuch'");
        assertError(setModel("fake/"), -32602, null);
        assertError(setModel(""), -32602, "modelId");
        assertError(agent.call("session/set_model", Json.object().put("sessionId", sessionId)), -32602, "modelId");
        assertError(agent.call("session/set_model", Json.object().put("sessionId", sessionId).put("modelId", 7)), -32602, "modelId");
        assertError(agent.call("session/set_model", Json.object().put("sessionId", sessionId).put("modelId", "fake/big")
                .put("apiKey", "sk-1")), -32602, "apiKey");
        assertError(agent.call("session/set_model", Json.object().put("sessionId", "nope").put("modelId", "fake/big")), -32002, "unknown sessionId");
        assertError(agent.call("session/list_models", Json.object().put("sessionId", "nope")), -32002, "unknown sessionId");
        assertError(agent.call("session/list_models", Json.object()), -32602, "sessionId");
        assertEquals("fake/small", listModels().path("currentModelId").asText(), "nothing changed");
    }

    @Test
    void setModelIsRefusedDuringATurn() throws Exception {
        model.enqueue(Script.reply().text("s").hang());
        agent.start("session/prompt", prompt("slow one"));
        agent.await(m -> sessionId.equals(m.path("params").path("sessionId").asText())
                && "agent_message_chunk".equals(m.path("params").path("update").path("sessionUpdate").asText()), Duration.ofSeconds(30));
        assertError(setModel("fake/big"), -32600, "active turn");
        assertEquals("fake/small", listModels().path("currentModelId").asText(), "the model is unchanged");
        agent.notify("session/cancel", Json.object().put("sessionId", sessionId));
    }
}
