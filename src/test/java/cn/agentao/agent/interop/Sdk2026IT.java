package cn.agentao.agent.interop;

import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static cn.agentao.agent.testing.FakeModelServer.lastUserMessageContains;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The late-2026 ACP features through the official TypeScript SDK (interop/sdk-2026.mjs), every agent message
 * checked against the SDK's v1 schema (unstable methods included): terminal auth and logout, notices, compaction
 * updates, elicitation, cost, session/fork.
 */
class Sdk2026IT {
    @TempDir
    Path dir;

    @Test
    void lateTwentyTwentySixFeaturesThroughTheOfficialSdk() throws Exception {
        Interop.ensureInstalled();
        try (FakeModelServer model = FakeModelServer.start()) {
            Path ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
            Path config = Files.createDirectories(dir.resolve("config/agent"));
            Files.writeString(config.resolve("config.json"), """
                    {"providers": {"fake": {"kind": "openai", "baseUrl": "%s", "apiKey": "sk-interop-2026", "models": ["m"]}},
                     "default": "fake/m",
                     "prices": {"fake/m": {"input": 1, "output": 2}, "broken": {"output": 1}}}
                    """.formatted(model.baseUrl()));
            model.whenEmptyFail();
            model.when(lastUserMessageContains("2026: ask me")).reply(
                    Script.reply().toolCall("call_ask", "ask_user", "{\"question\":\"Favourite colour?\"}"), Script.textReply("teal it is"));
            model.when(lastUserMessageContains("2026: second")).replyAlways(Script.reply().text("second").usage(100, 10));
            model.when(lastUserMessageContains("Write the summary now")).replyAlways(Script.reply().text("The user ", "likes teal."));
            model.when(lastUserMessageContains("2026: in the fork")).replyAlways(Script.textReply("forked fine"));

            List<String> cmd = Interop.node("sdk-2026.mjs", "--cwd", ws.toString());
            cmd.addAll(List.of("--", Interop.agentCommand().toString(), "--acp"));
            Interop.Result r = Interop.run(cmd, Interop.agentEnvironment(Map.of(), dir), ws, Duration.ofSeconds(150));
            JsonNode summary;
            try {
                summary = Json.mapper().readTree(r.stdout());
            } catch (Exception e) {
                throw new AssertionError("sdk-2026.mjs printed no JSON summary (exit " + r.exitCode() + ")\n" + r.stdout() + "\n" + Interop.tail(r.stderr()));
            }
            assertTrue(summary.path("ok").asBoolean() && r.exitCode() == 0, "the SDK run failed: " + summary.toPrettyString());
            JsonNode steps = summary.path("steps");
            assertEquals(0, summary.path("schema").path("violations").size(), summary.path("schema").toPrettyString());
            assertTrue(steps.path("notices").get(0).path("title").asText().contains("'broken'"), steps.path("notices").toString());
            assertEquals("Favourite colour?", steps.path("elicitation").path("requests").get(0).path("message").asText());
            assertTrue(model.requests().stream().anyMatch(q -> q.rawBody().contains("teal") && q.rawBody().contains("call_ask")),
                    "the answer from the form went back to the model");
            assertEquals("The user likes teal.", steps.path("compaction").path("updates").get(1).path("summary").get(0).path("text").asText());
            assertTrue(steps.path("usage").path("cost").path("amount").asDouble() > 0, steps.path("usage").toString());
            assertFalse(Interop.tail(r.stderr()).contains("sk-interop-2026"), "the key is not logged");
        }
    }
}
