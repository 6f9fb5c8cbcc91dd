package cn.agentao.agent.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import cn.agentao.agent.model.LangChainModelClient;
import cn.agentao.agent.model.ModelClient;
import cn.agentao.agent.model.ModelOptions;
import cn.agentao.agent.model.ModelRequest;
import cn.agentao.agent.model.ModelResponse;
import cn.agentao.agent.model.ModelStreamListener;
import cn.agentao.agent.model.ProviderKind;
import cn.agentao.agent.model.ResolvedProvider;
import cn.agentao.agent.model.RetryPolicy;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.output.FinishReason;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fake server on its own: non-stream answers (checked with LangChain4j's own clients), scripting, control. */
class FakeModelServerIT {
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private FakeModelServer server;

    @BeforeEach
    void start() {
        server = FakeModelServer.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String chat(String userText) {
        return "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"" + userText + "\"}]}";
    }

    @Test
    void answersNonStreamingOpenAiRequests() {
        server.enqueue(Script.reply().reasoning("hm").text("Hello", " there").toolCall("call_9", "grep", "{\"q\":\"x\"}")
                .usage(7, 3));
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(server.baseUrl()).apiKey(FakeModelServer.API_KEY)
                .modelName(FakeModelServer.MODEL).maxRetries(0).build();

        ChatResponse response = model.chat(UserMessage.from("hi"));

        assertEquals("Hello there", response.aiMessage().text());
        assertEquals("call_9", response.aiMessage().toolExecutionRequests().get(0).id());
        assertEquals("{\"q\":\"x\"}", response.aiMessage().toolExecutionRequests().get(0).arguments());
        assertEquals(FinishReason.TOOL_EXECUTION, response.finishReason());
        assertEquals(7, response.tokenUsage().inputTokenCount());
        assertEquals(3, response.tokenUsage().outputTokenCount());
        assertEquals("Bearer " + FakeModelServer.API_KEY, server.lastRequest().header("authorization"));
    }

    @Test
    void answersNonStreamingAnthropicRequests() {
        server.enqueue(Script.reply().text("Bonjour").finish("length"));
        AnthropicChatModel model = AnthropicChatModel.builder().baseUrl(server.baseUrl()).apiKey(FakeModelServer.API_KEY)
                .modelName(FakeModelServer.MODEL).maxRetries(0).build();

        ChatResponse response = model.chat(UserMessage.from("salut"));

        assertEquals("Bonjour", response.aiMessage().text());
        assertEquals(FinishReason.LENGTH, response.finishReason());
        assertEquals(RecordedRequest.Api.ANTHROPIC, server.lastRequest().api());
    }

    @Test
    void errorScriptsRepeatThenTheQueueMovesOn() throws Exception {
        server.enqueue(Script.httpError(503, null).times(2), Script.textReply("next"));

        assertEquals(503, post("/v1/chat/completions", chat("a")).statusCode());
        assertEquals(503, post("/v1/chat/completions", chat("b")).statusCode());
        HttpResponse<String> third = post("/v1/chat/completions", chat("c"));
        assertEquals(200, third.statusCode());
        assertTrue(third.body().contains("next"));
        assertTrue(post("/v1/chat/completions", chat("d")).body().contains("\"ok\""), "empty queue answers ok");

        server.whenEmptyFail();
        assertEquals(500, post("/v1/chat/completions", chat("e")).statusCode());
        assertEquals(5, server.requests().size());
    }

    @Test
    void rulesMatchTheLastUserMessage() throws Exception {
        server.when(FakeModelServer.lastUserMessageContains("weather")).reply(Script.textReply("sunny"), Script.textReply("rainy"));
        server.when(FakeModelServer.lastUserMessageContains("time")).replyAlways(Script.textReply("noon"));
        server.enqueue(Script.textReply("queued"));

        assertTrue(post("/v1/chat/completions", chat("the weather?")).body().contains("sunny"));
        assertTrue(post("/v1/chat/completions", chat("time?")).body().contains("noon"));
        assertTrue(post("/v1/chat/completions", chat("weather again")).body().contains("rainy"));
        assertTrue(post("/v1/chat/completions", chat("weather once more")).body().contains("queued"), "rule used up");
        assertTrue(post("/v1/chat/completions", chat("time now")).body().contains("noon"));
    }

    @Test
    void unknownPathsAre404() throws Exception {
        assertEquals(404, post("/v1/embeddings", "{}").statusCode());
    }

    @Test
    void controlEndpointsScriptAndInspectFromOtherProcesses() throws Exception {
        HttpResponse<String> configured = post("/_fake/configure", """
                {"default": "fail",
                 "queue": [{"steps": [{"text": ["a", "b"]}, {"finish": "length"}]}],
                 "rules": [{"lastUserMessageContains": "ping", "replies": ["pong"], "always": true}]}
                """);
        assertEquals(200, configured.statusCode());

        assertTrue(post("/v1/chat/completions", chat("ping")).body().contains("pong"));
        String queued = post("/v1/chat/completions", chat("x")).body();
        assertTrue(queued.contains("\"ab\"") && queued.contains("\"length\""), queued);
        assertEquals(500, post("/v1/chat/completions", chat("y")).statusCode());

        JsonNode requests = Json.mapper().readTree(http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/_fake/requests")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        assertEquals(3, requests.size());
        assertEquals("ping", requests.get(0).path("body").path("messages").get(0).path("content").asText());

        post("/_fake/reset", "");
        assertTrue(server.requests().isEmpty());
        assertTrue(post("/v1/chat/completions", chat("z")).body().contains("\"ok\""));
    }

    @Test
    void streamsTwentyThousandChunksQuickly() throws Exception {
        server.enqueue(Script.reply().repeatedText("tok ", 20_000));
        ModelClient client = new LangChainModelClient(new ResolvedProvider("openai", ProviderKind.OPENAI_COMPATIBLE,
                server.baseUrl(), FakeModelServer.API_KEY, "OPENAI_API_KEY"), FakeModelServer.MODEL,
                ModelOptions.defaults().withRetry(RetryPolicy.NONE));
        AtomicInteger chunks = new AtomicInteger();

        long start = System.nanoTime();
        ModelResponse response = client.stream(new ModelRequest(List.of(UserMessage.from("go"))), new ModelStreamListener() {
            @Override
            public void onText(String delta) {
                chunks.incrementAndGet();
            }

            @Override
            public void onReasoning(String delta) {}
        }, Cancellation.NONE);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertEquals(20_000, chunks.get());
        assertEquals(20_000 * 4, response.message().text().length());
        assertTrue(millis < 15_000, "20,000 chunks took " + millis + " ms");
        System.err.println("20,000 chunks streamed in " + millis + " ms");
    }

    @Test
    void mainServesAScriptFileAndPrintsItsPort(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("script.json");
        Files.writeString(script, "{\"queue\": [\"from the file\"]}");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                FakeModelServer.class.getName(), "--script", script.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader stderr = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
            Pattern listening = Pattern.compile("FakeModelServer listening on http://127\\.0\\.0\\.1:(\\d+)");
            Matcher matcher = null;
            for (String line; (line = stderr.readLine()) != null; ) {
                matcher = listening.matcher(line);
                if (matcher.find()) {
                    break;
                }
            }
            assertNotNull(matcher);
            int port = Integer.parseInt(matcher.group(1));
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(chat("hi"))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(response.body().contains("from the file"), response.body());
        } finally {
            process.destroy();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void scriptsRejectMisuse() {
        assertThrows(IllegalStateException.class, () -> Script.httpError(500, null).text("x"));
        assertThrows(IllegalStateException.class, () -> Script.reply().retryAfter(1));
    }

    @Test
    void toolArgumentsAreSplitWithoutBreakingCharacters() {
        assertEquals(List.of("a", "bc", "de"), ReplyPlayer.split("abcde", 3));
        assertEquals(List.of("a", "\uD83D\uDE00", "b"), ReplyPlayer.split("a\uD83D\uDE00b", 5));
        assertEquals(List.of(""), ReplyPlayer.split("", 4));
    }
}
