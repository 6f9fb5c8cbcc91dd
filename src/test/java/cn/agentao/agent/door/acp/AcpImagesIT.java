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

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Through ACP: a prompt's image block and an embedded image resource reach a model that takes images as images (in the
 * provider's wire form), and a model that takes none reads what they were; read_file of a PNG reaches the model too.
 */
class AcpImagesIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    AgentProcess agent;
    Path ws;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
    }

    @AfterEach
    void stop() {
        try {
            if (agent != null) assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC");
        } finally {
            if (agent != null) agent.close();
            model.close();
        }
    }

    private String session(String modelName) throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("OPENAI_MODEL", modelName);
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        agent = AgentProcess.start(env, "--acp");
        assertTrue(agent.call("initialize", Json.object().put("protocolVersion", 1)).path("result")
                .path("agentCapabilities").path("promptCapabilities").path("image").asBoolean());
        return agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                .path("result").path("sessionId").asText();
    }

    private static byte[] png(int width, int height) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB), "png", out);
        return out.toByteArray();
    }

    private ObjectNode imagePrompt(String id, String data) {
        ObjectNode p = Json.object().put("sessionId", id);
        p.putArray("prompt")
                .add(Json.object().put("type", "text").put("text", "what are these"))
                .add(Json.object().put("type", "image").put("mimeType", "image/png").put("data", data))
                .add(Json.object().put("type", "resource").set("resource", Json.object()
                        .put("uri", "file://" + ws + "/shot.png").put("mimeType", "image/png").put("blob", data)));
        return p;
    }

    /** The image parts of the last request's last user message, as OpenAI's chat wire has them. */
    private List<String> imageUrls() {
        JsonNode messages = model.lastRequest().body().path("messages");
        JsonNode user = messages.get(messages.size() - 1);
        return user.path("content").findValues("url").stream().map(JsonNode::asText).toList();
    }

    @Test
    void aPromptsImageAndImageResourceReachAModelThatTakesImages() throws Exception {
        String id = session("gpt-4o");
        String data = Base64.getEncoder().encodeToString(png(3, 2));
        model.enqueue(Script.textReply("two dots"));

        JsonNode r = agent.call("session/prompt", imagePrompt(id, data), Duration.ofSeconds(60));

        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        assertEquals(List.of("data:image/png;base64," + data, "data:image/png;base64," + data), imageUrls());
    }

    @Test
    void aModelWithoutImagesReadsWhatThePromptsImagesWere() throws Exception {
        String id = session(FakeModelServer.MODEL);
        byte[] png = png(3, 2);
        String data = Base64.getEncoder().encodeToString(png);
        model.enqueue(Script.textReply("I cannot see them"));

        JsonNode r = agent.call("session/prompt", imagePrompt(id, data), Duration.ofSeconds(60));

        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        String body = model.lastRequest().rawBody();
        assertFalse(body.contains(data), "no image data goes to a model that takes none");
        assertTrue(body.contains("A PNG image of 3×2 pixels, " + png.length + " bytes; this model does not accept images."), body);
    }

    @Test
    void readFileOfAPngReachesTheModel() throws Exception {
        byte[] png = png(16, 9);
        Files.write(ws.resolve("screen.png"), png);
        String id = session("gpt-4o");
        model.enqueue(Script.reply().toolCall("c1", "read_file", "{\"path\":\"screen.png\"}").finish("tool_calls"),
                Script.textReply("a black screen"));

        JsonNode r = agent.call("session/prompt", AgentProcess.prompt(id, "look at screen.png"), Duration.ofSeconds(60));

        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        assertEquals(List.of("data:image/png;base64," + Base64.getEncoder().encodeToString(png)), imageUrls());
    }
}
