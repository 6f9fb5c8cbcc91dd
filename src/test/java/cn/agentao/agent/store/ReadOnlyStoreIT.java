package cn.agentao.agent.store;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/** A session store that turned read-only (mounted so, here with bwrap): saved conversations still open, read-only. */
class ReadOnlyStoreIT {
    @TempDir
    Path dir;

    @Test
    void aSavedConversationOpensReadOnlyWithANoticeAndNewTurnsSayTheyAreNotSaved() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path store = dir.resolve("store");
        try (FakeModelServer model = FakeModelServer.start()) {
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", store.toString());
            String id;
            try (AgentProcess a = AgentProcess.start(env, "--acp")) {
                init(a);
                id = a.call("session/new", setup(ws)).path("result").path("sessionId").asText();
                model.enqueue(Script.textReply("Noted: parsnip."));
                assertEquals("end_turn", a.call("session/prompt", AgentProcess.prompt(id, "remember parsnip")).path("result").path("stopReason").asText());
            }
            String savedBefore = logs(store);

            ProcessBuilder readOnly = AgentProcess.command(env, "--acp");
            readOnly.command().addAll(0, List.of("bwrap", "--dev-bind", "/", "/", "--ro-bind", store.toString(), store.toString(), "--"));
            try (AgentProcess b = AgentProcess.start(readOnly)) {
                init(b);
                JsonNode loaded = b.call("session/load", setup(ws).put("sessionId", id), Duration.ofSeconds(30));
                assertTrue(loaded.has("result"), "a read-only store still shows its conversations: " + loaded);
                String shown = b.agentText(id);
                assertTrue(shown.contains("Noted: parsnip."), "replayed: " + shown);
                b.await(m -> m.toString().contains("opened read-only"), Duration.ofSeconds(10)); // the notice, once ready

                model.enqueue(Script.textReply("Still here."));
                JsonNode turn = b.call("session/prompt", AgentProcess.prompt(id, "and now?"), Duration.ofSeconds(30));
                assertEquals("end_turn", turn.path("result").path("stopReason").asText(), turn.toString());
                String after = b.agentText(id);
                assertTrue(after.contains("Still here."), after);
                assertTrue(after.contains("This turn is not saved"), "the turn says it is not saved: " + after);
                assertTrue(model.lastRequest().messages().toString().contains("remember parsnip"), "the history went to the model");
            }
            assertEquals(savedBefore, logs(store), "nothing was written");
        }
    }

    private static void init(AgentProcess p) throws InterruptedException {
        assertTrue(p.call("initialize", Json.object().put("protocolVersion", 1).set("clientCapabilities", Json.object())).has("result"));
    }

    private static ObjectNode setup(Path ws) {
        ObjectNode p = Json.object().put("cwd", ws.toString());
        p.putArray("mcpServers");
        return p;
    }



    private static String logs(Path store) throws Exception {
        try (Stream<Path> files = Files.walk(store)) {
            StringBuilder all = new StringBuilder();
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) all.append(f).append('\n').append(Files.readString(f));
            return all.toString();
        }
    }
}
