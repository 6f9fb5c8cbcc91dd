package cn.agentao.agent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link LangChainModelClient} against the fake server's Anthropic Messages wire. */
class AnthropicModelClientTest {
    private static final String KEY = "sk-ant-test-secret-0123456789";

    private FakeModelServer server;
    private ModelClient client;

    @BeforeEach
    void start() {
        server = FakeModelServer.start();
        client = client(server.baseUrl(), ModelOptions.defaults().withRetry(new RetryPolicy(3, Duration.ofMillis(10), Duration.ofSeconds(1))));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private ModelClient client(String baseUrl, ModelOptions options) {
        return new LangChainModelClient(new ResolvedProvider("anthropic", ProviderKind.ANTHROPIC, baseUrl, KEY,
                "ANTHROPIC_API_KEY (from the environment)"), "claude-test", options);
    }

    private static ModelRequest ask(String text) {
        return new ModelRequest(List.of(SystemMessage.from("Be brief."), UserMessage.from(text)));
    }

    @Test
    void streamsThinkingTextAndToolUse() throws Exception {
        String arguments = "{\"path\":\"README.md\"}";
        server.enqueue(Script.reply().reasoning("The user ", "wants a file.").text("Let me ", "look.")
                .toolCall("toolu_01", "read_file", arguments, 4).usage(321, 54));
        RecordingListener listener = new RecordingListener();

        ModelResponse response = client.stream(ask("show the readme"), listener, Cancellation.NONE);

        assertEquals(List.of("reasoning:The user ", "reasoning:wants a file.", "text:Let me ", "text:look.",
                "tool:0:toolu_01:read_file"), listener.events());
        AiMessage message = response.message();
        assertEquals("The user wants a file.", message.thinking());
        assertEquals("Let me look.", message.text());
        ToolExecutionRequest call = message.toolExecutionRequests().get(0);
        assertEquals("toolu_01", call.id());
        assertEquals("read_file", call.name());
        assertEquals(arguments, call.arguments());
        assertEquals(FinishKind.TOOL_CALLS, response.finish());
        assertEquals(321, response.usage().input());
        assertEquals(54, response.usage().output());

        RecordedRequest request = server.lastRequest();
        assertEquals("/v1/messages", request.path());
        assertEquals(KEY, request.header("x-api-key"));
        assertNotNull(request.header("anthropic-version"));
        assertTrue(request.streaming());
        assertEquals("claude-test", request.model());
        assertEquals(StreamingModelFactory.ANTHROPIC_DEFAULT_MAX_TOKENS, request.body().path("max_tokens").asInt());
        assertEquals("Be brief.", systemText(request.body().path("system")));
        assertEquals("show the readme", request.lastUserMessage());
        assertFalse(request.body().has("thinking"), "no extended thinking unless an effort is asked for");
    }

    @Test
    void toolResultsGoBackAsUserTurnsAndDoNotCountAsTheUserMessage() throws Exception {
        server.enqueue(Script.textReply("The readme says hello."));
        AiMessage call = AiMessage.from(ToolExecutionRequest.builder().id("toolu_01").name("read_file")
                .arguments("{\"path\":\"README.md\"}").build());
        List<dev.langchain4j.data.message.ChatMessage> history = List.of(UserMessage.from("show the readme"), call,
                ToolExecutionResultMessage.from("toolu_01", "read_file", "hello"));

        ModelResponse response = client.stream(new ModelRequest(history), ModelStreamListener.IGNORE, Cancellation.NONE);

        assertEquals("The readme says hello.", response.message().text());
        assertEquals(FinishKind.STOP, response.finish());
        RecordedRequest request = server.lastRequest();
        JsonNode last = request.messages().get(request.messages().size() - 1);
        assertEquals("tool_result", last.path("content").get(0).path("type").asText());
        assertEquals("show the readme", request.lastUserMessage());
    }

    @Test
    void baseUrlWithoutV1WorksLikeAnthropicsSdk() throws Exception {
        ModelClient sdkStyle = client("http://127.0.0.1:" + server.port(), ModelOptions.defaults());
        server.enqueue(Script.textReply("hi"));

        assertEquals("hi", sdkStyle.stream(ask("hello"), ModelStreamListener.IGNORE, Cancellation.NONE).message().text());
        assertEquals("/v1/messages", server.lastRequest().path());
    }

    @Test
    void maxTokensStopIsLength() throws Exception {
        server.enqueue(Script.reply().text("trunc").finish("length"));

        assertEquals(FinishKind.LENGTH, client.stream(ask("long"), ModelStreamListener.IGNORE, Cancellation.NONE).finish());
    }

    @Test
    void reasoningEffortEnablesExtendedThinking() throws Exception {
        server.enqueue(Script.reply().reasoning("hmm").text("done"));

        client.stream(new ModelRequest(List.of(UserMessage.from("think hard")), List.of(), "high"),
                ModelStreamListener.IGNORE, Cancellation.NONE);

        JsonNode body = server.lastRequest().body();
        assertEquals("enabled", body.path("thinking").path("type").asText());
        int budget = body.path("thinking").path("budget_tokens").asInt();
        assertEquals(StreamingModelFactory.anthropicThinkingBudget("high"), budget);
        assertTrue(body.path("max_tokens").asInt() > budget);
        assertFalse(body.has("temperature"));
    }

    @Test
    void cacheReadsAndWritesCountAsInputAndCachedReadsAreReported() throws Exception {
        server.enqueue(Script.reply().text("hi").usage(1000, 20, 800));

        ModelResponse response = client.stream(ask("hello"), ModelStreamListener.IGNORE, Cancellation.NONE);

        assertEquals(new TokenCount(1000, 20, 1020, 800), response.usage());
    }

    @Test
    void aRefusalIsContentFilter() throws Exception {
        server.enqueue(Script.reply().text("I can't help with that.").finish("content_filter"));

        assertEquals(FinishKind.CONTENT_FILTER, client.stream(ask("bad"), ModelStreamListener.IGNORE, Cancellation.NONE).finish());
    }

    @Test
    void toolUseArgumentsSplitIntoManyPiecesAreJoined() throws Exception {
        String arguments = "{\"path\":\"src/main/Grüß 日本.java\",\"offset\":10,\"limit\":200}";
        server.enqueue(Script.reply().toolCall("toolu_01", "read_file", arguments, 40).toolCall("toolu_02", "list", "{}", 1));

        ModelResponse response = client.stream(ask("read"), ModelStreamListener.IGNORE, Cancellation.NONE);

        assertEquals(arguments, response.message().toolExecutionRequests().get(0).arguments());
        assertEquals("toolu_02", response.message().toolExecutionRequests().get(1).id());
        assertEquals(FinishKind.TOOL_CALLS, response.finish());
    }

    @Test
    void thinkingGoesBackWithItsSignatureAlongsideTheToolUse() throws Exception {
        server.enqueue(Script.reply().reasoning("I should ", "read it.").toolCall("toolu_01", "read_file", "{\"path\":\"a\"}", 2),
                Script.textReply("done"));
        ModelRequest first = new ModelRequest(List.of(UserMessage.from("read a")), List.of(), "high");
        AiMessage call = client.stream(first, ModelStreamListener.IGNORE, Cancellation.NONE).message();

        client.stream(new ModelRequest(List.of(UserMessage.from("read a"), call,
                ToolExecutionResultMessage.from("toolu_01", "read_file", "hello")), List.of(), "high"),
                ModelStreamListener.IGNORE, Cancellation.NONE);

        JsonNode assistant = server.lastRequest().messages().get(1);
        assertEquals("assistant", assistant.path("role").asText());
        JsonNode thinking = assistant.path("content").get(0);
        assertEquals("thinking", thinking.path("type").asText(), assistant.toString());
        assertEquals("I should read it.", thinking.path("thinking").asText());
        assertEquals("fake-signature-0", thinking.path("signature").asText());
        assertEquals("tool_use", assistant.path("content").get(1).path("type").asText());
    }

    @Test
    void anErrorEventBeforeAnyOutputIsRetried() throws Exception {
        server.enqueue(Script.reply().streamError("overloaded_error", "Overloaded"), Script.textReply("ok"));

        assertEquals("ok", client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE).message().text());
        assertEquals(2, server.requests().size());
    }

    @Test
    void overloadedIsRetriedBeforeOutput() throws Exception {
        server.enqueue(Script.httpError(529, null), Script.textReply("ok"));

        assertEquals("ok", client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE).message().text());
        assertEquals(2, server.requests().size());
    }

    @Test
    void errorEventAfterOutputIsAServerErrorNotRetried() {
        server.enqueue(Script.reply().text("Hal").streamError("overloaded_error", "Overloaded"), Script.textReply("again"));
        RecordingListener listener = new RecordingListener();

        ModelException e = assertThrows(ModelException.class, () -> client.stream(ask("hi"), listener, Cancellation.NONE));

        assertEquals(ModelException.Kind.SERVER, e.kind());
        assertEquals(List.of("Hal"), listener.texts());
        assertEquals(1, server.requests().size());
    }

    @Test
    void unauthorizedIsAuthWithoutTheKey() {
        server.enqueue(Script.httpError(401, null));

        ModelException e = assertThrows(ModelException.class,
                () -> client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE));

        assertEquals(ModelException.Kind.AUTH, e.kind());
        assertTrue(e.userMessage().contains("ANTHROPIC_API_KEY"), e.userMessage());
        assertFalse(e.userMessage().contains(KEY));
    }

    @Test
    void streamEndingWithoutMessageStopIsAConnectionError() {
        server.enqueue(Script.reply().text("half an ans").pause(50).truncate(), Script.textReply("again"));
        RecordingListener listener = new RecordingListener();

        ModelException e = assertThrows(ModelException.class, () -> client.stream(ask("hi"), listener, Cancellation.NONE));

        assertEquals(ModelException.Kind.CONNECTION, e.kind());
        assertEquals(List.of("half an ans"), listener.texts());
    }

    @Test
    void cancelStopsTheStreamPromptly() throws Exception {
        server.enqueue(Script.reply().text("one").hang());
        CancellationSource cancel = new CancellationSource();
        RecordingListener listener = new RecordingListener();
        CompletableFuture<ModelException> result = CompletableFuture.supplyAsync(() -> {
            try {
                client.stream(ask("hi"), listener, cancel);
                return null;
            } catch (ModelException e) {
                return e;
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (listener.texts().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }

        cancel.cancel();
        ModelException e = result.get(30, TimeUnit.SECONDS); // the stream hangs after "one": only the cancel ends it

        assertEquals(ModelException.Kind.CANCELLED, e.kind());
        assertTrue(server.lastRequest().awaitClientDisconnect(Duration.ofSeconds(30)));
    }

    private static String systemText(JsonNode system) {
        if (system.isTextual()) {
            return system.asText();
        }
        StringBuilder out = new StringBuilder();
        system.forEach(block -> out.append(block.path("text").asText()));
        return out.toString();
    }
}
