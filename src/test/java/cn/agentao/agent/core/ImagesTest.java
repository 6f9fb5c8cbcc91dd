package cn.agentao.agent.core;

import cn.agentao.agent.cli.ToolCalls;
import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SyncPolicy;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static cn.agentao.agent.core.CoreFixture.text;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Images reach the model: {@code read_file} of a PNG puts the picture in the next request (as each provider's wire
 * has it), a model without image support reads a sentence about it instead, an image past the limit is refused, and
 * a prompt's embedded image resource goes to the model as an image.
 */
@Timeout(60)
class ImagesTest {
    @TempDir
    Path dir;
    FakeModelServer model;
    Map<String, String> env;
    Path ws;
    SessionService sessions;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        ws = Files.createDirectories(dir.resolve("ws"));
    }

    /** The service, built as the process builds it, for the model {@code environment} chooses, with {@code configJson}. */
    private Session open(Map<String, String> environment, String configJson) throws Exception {
        env = new HashMap<>(environment);
        env.put("HOME", dir.resolve("home").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("AGENT_SANDBOX", "none");
        if (configJson != null) {
            Path configDir = Files.createDirectories(ConfigLocations.userConfigDir(env));
            Files.writeString(configDir.resolve("config.json"), configJson);
        }
        Engine engine = new Engine(AgentConfig.load(env), ToolCalls.create(AgentConfig.load(env)));
        sessions = new SessionService(engine, new SessionStore(dir.resolve("store"), SyncPolicy.NO_FSYNC));
        Session s = sessions.create(SessionService.Spec.of(ws), id -> new FakeHost());
        s.ready();
        return s;
    }

    @AfterEach
    void stop() {
        if (sessions != null) sessions.close();
        model.close();
    }

    private static byte[] png(int width, int height) throws Exception {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        image.setRGB(0, 0, 0xFF0000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "png", out);
        return out.toByteArray();
    }

    private String readFileOf(Session s, Path file) throws Exception {
        model.enqueue(Script.reply().toolCall("c1", "read_file", "{\"path\":\"" + file + "\"}"), Script.textReply("A red dot."));
        s.prompt(text("what is in the picture?"), Cancellation.NONE);
        return model.lastRequest().rawBody();
    }

    /** The messages of the last request, OpenAI's chat format. */
    private JsonNode messages() {
        return model.lastRequest().body().path("messages");
    }

    @Test
    void readFileOfAPngPutsTheImageInTheNextOpenAiRequestWhenConfigJsonSaysTheModelTakesImages() throws Exception {
        byte[] png = png(40, 30);
        Files.write(ws.resolve("shot.png"), png);
        Session s = open(Map.of(), """
                {"providers": {"local": {"kind": "openai", "baseUrl": "%s", "apiKey": "%s",
                   "models": [{"id": "%s", "images": true}]}}, "default": "local/%s"}
                """.formatted(model.baseUrl(), FakeModelServer.API_KEY, FakeModelServer.MODEL, FakeModelServer.MODEL));

        readFileOf(s, ws.resolve("shot.png"));

        JsonNode messages = messages();
        JsonNode tool = messages.get(messages.size() - 2);
        assertEquals("tool", tool.path("role").asText(), messages.toString());
        assertTrue(tool.path("content").asText().contains("a PNG image of 40×30 pixels"), tool.toString());
        JsonNode user = messages.get(messages.size() - 1);
        assertEquals("user", user.path("role").asText(), "the image follows the tool result: " + messages);
        String url = null;
        for (JsonNode part : user.path("content")) {
            if (part.path("type").asText().equals("image_url")) url = part.path("image_url").path("url").asText();
        }
        assertEquals("data:image/png;base64," + Base64.getEncoder().encodeToString(png), url, user.toString());
    }

    @Test
    void anAnthropicModelGetsTheImageAsABase64Source() throws Exception {
        byte[] png = png(12, 8);
        Files.write(ws.resolve("shot.png"), png);
        Map<String, String> anthropic = new HashMap<>(model.anthropicEnvironment());
        anthropic.put("ANTHROPIC_MODEL", "claude-sonnet-4-6"); // known to take images
        Session s = open(anthropic, null);

        readFileOf(s, ws.resolve("shot.png"));

        JsonNode image = null;
        for (JsonNode m : model.lastRequest().body().path("messages")) {
            for (JsonNode part : m.path("content")) if (part.path("type").asText().equals("image")) image = part;
        }
        assertNotNull(image, model.lastRequest().rawBody());
        assertEquals("base64", image.path("source").path("type").asText());
        assertEquals("image/png", image.path("source").path("media_type").asText());
        assertEquals(Base64.getEncoder().encodeToString(png), image.path("source").path("data").asText());
    }

    @Test
    void aModelWithoutImageSupportReadsWhatTheImageWas() throws Exception {
        byte[] png = png(40, 30);
        Files.write(ws.resolve("shot.png"), png);
        Session s = open(model.openAiEnvironment(), null); // fake-model: no known image support, no flag

        String body = readFileOf(s, ws.resolve("shot.png"));

        assertFalse(body.contains(Base64.getEncoder().encodeToString(png)), "no image data goes out");
        assertFalse(body.contains("image_url"), body);
        assertTrue(body.contains("A PNG image of 40×30 pixels, " + png.length + " bytes; this model does not accept images."), body);
    }

    @Test
    void anImagePastTheLimitIsRefusedWithAClearMessage() throws Exception {
        byte[] wide = png(9000, 2);
        Files.write(ws.resolve("wide.png"), wide);
        Map<String, String> vision = new HashMap<>(model.openAiEnvironment());
        vision.put("OPENAI_MODEL", "gpt-4o");
        Session s = open(vision, null);

        String body = readFileOf(s, ws.resolve("wide.png"));

        assertFalse(body.contains("image_url"), body);
        JsonNode messages = messages();
        String result = messages.get(messages.size() - 1).path("content").asText();
        assertTrue(result.contains("9000×2 pixels") && result.contains("larger than models accept")
                && result.contains("8000 pixels a side"), result);
    }

    @Test
    void aPromptsEmbeddedImageResourceReachesTheModelAsAnImage() throws Exception {
        byte[] png = png(5, 5);
        Map<String, String> vision = new HashMap<>(model.openAiEnvironment());
        vision.put("OPENAI_MODEL", "gpt-4o");
        Session s = open(vision, null);
        String data = Base64.getEncoder().encodeToString(png);
        var resource = Json.object().put("uri", "file:///tmp/dot.png").put("mimeType", "image/png").put("blob", data);

        model.enqueue(Script.textReply("A dot."));
        s.prompt(List.of(ContentBlock.text("look"), new ContentBlock.Resource(resource, null, null)), Cancellation.NONE);

        assertTrue(model.lastRequest().rawBody().contains("\"url\":\"data:image/png;base64," + data + "\""),
                model.lastRequest().rawBody());
    }
}
