package cn.agentao.agent.door.acp;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** A W3C traceparent in a request's _meta is named in that request's log lines and sent on its model calls. */
class TraceparentIT {
    static final String TRACE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    @TempDir
    Path dir;

    ObjectNode prompt(String sessionId, String text, String traceparent) {
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        if (traceparent != null) p.putObject("_meta").put("traceparent", traceparent);
        return p;
    }

    @Test
    void keptInLogLinesAndSentToTheModel() throws Exception {
        try (FakeModelServer model = FakeModelServer.start()) {
            Path config = Files.createDirectories(dir.resolve("config/agent"));
            Files.writeString(config.resolve("config.json"), """
                    {"providers": {"fake": {"kind": "openai", "baseUrl": "%s", "apiKey": "k", "models": ["m"]}}, "default": "fake/m"}
                    """.formatted(model.baseUrl()));
            try (AgentProcess agent = AgentProcess.start(java.util.Map.of("XDG_CONFIG_HOME", dir.resolve("config").toString(),
                    "AGENT_SESSIONS_DIR", dir.resolve("store").toString()), "--acp", "--log-level", "debug")) {
                agent.call("initialize", Json.object().put("protocolVersion", 1));
                ObjectNode session = Json.object().put("cwd", Files.createDirectories(dir.resolve("ws")).toString());
                session.putArray("mcpServers");
                String id = agent.call("session/new", session).path("result").path("sessionId").asText();

                model.enqueue(Script.textReply("traced"));
                agent.call("session/prompt", prompt(id, "one", TRACE), Duration.ofSeconds(60));
                assertEquals(TRACE, model.lastRequest().header("traceparent"), "sent on the model call");

                model.enqueue(Script.textReply("untraced"));
                agent.call("session/prompt", prompt(id, "two", null), Duration.ofSeconds(60));
                assertNull(model.lastRequest().header("traceparent"), "no trace, no header");

                model.enqueue(Script.textReply("bad"));
                agent.call("session/prompt", prompt(id, "three", "00-00000000000000000000000000000000-b7ad6b7169203331-01"), Duration.ofSeconds(60));
                assertNull(model.lastRequest().header("traceparent"), "an invalid traceparent is dropped");

                List<String> traced = Arrays.stream(agent.stderr().split("\n")).filter(l -> l.contains("[traceparent " + TRACE + "]")).toList();
                assertTrue(traced.stream().anyMatch(l -> l.contains("<- session/prompt")), agent.stderr());
                assertTrue(traced.stream().anyMatch(l -> l.contains("model call 1 to fake/m")), agent.stderr());
                assertTrue(traced.stream().anyMatch(l -> l.contains("-> session/prompt")), agent.stderr());
                assertEquals(1, traced.stream().filter(l -> l.contains("<- session/prompt")).count(),
                        "only that request's lines: " + traced);
            }
        }
    }
}
