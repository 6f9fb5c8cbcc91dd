package cn.agentao.agent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link LangChainModelClient} against the fake server's OpenAI Chat Completions wire. */
class OpenAiModelClientTest {
    private static final String KEY = "sk-test-secret-0123456789";
    private static final RetryPolicy FAST_RETRY = new RetryPolicy(4, Duration.ofMillis(10), Duration.ofSeconds(30));

    private FakeModelServer server;
    private ModelClient client;

    @BeforeEach
    void start() {
        server = FakeModelServer.start();
        client = client(ModelOptions.defaults().withRetry(FAST_RETRY));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private ModelClient client(ModelOptions options) {
        ResolvedProvider provider = new ResolvedProvider("openai", ProviderKind.OPENAI_COMPATIBLE, server.baseUrl(), KEY,
                "OPENAI_API_KEY (from the environment)");
        return new LangChainModelClient(provider, "fake-model", options);
    }

    private static ModelRequest ask(String text) {
        return new ModelRequest(List.of(SystemMessage.from("You are terse."), UserMessage.from(text)));
    }

    @Test
    void streamsTextDeltasInOrder() throws Exception {
        server.enqueue(Script.reply().text("Hel", "lo", ", world"));
        RecordingListener listener = new RecordingListener();

        ModelResponse response = client.stream(ask("hi"), listener, Cancellation.NONE);

        assertEquals(List.of("Hel", "lo", ", world"), listener.texts());
        assertEquals("Hello, world", response.message().text());
        assertEquals(FinishKind.STOP, response.finish());
        RecordedRequest request = server.lastRequest();
        assertEquals("/v1/chat/completions", request.path());
        assertEquals("Bearer " + KEY, request.header("Authorization"));
        assertEquals("fake-model", request.model());
        assertTrue(request.streaming());
        assertEquals("hi", request.lastUserMessage());
        assertEquals("system", request.messages().get(0).path("role").asText());
        assertFalse(request.body().has("temperature"), "temperature is only sent when configured");
        assertFalse(request.body().has("reasoning_effort"));
    }

    @Test
    void reasoningContentReachesOnReasoning() throws Exception {
        server.enqueue(Script.reply().reasoning("Let me ", "think.").text("42"));
        RecordingListener listener = new RecordingListener();

        ModelResponse response = client.stream(ask("question"), listener, Cancellation.NONE);

        assertEquals(List.of("reasoning:Let me ", "reasoning:think.", "text:42"), listener.events());
        assertEquals("Let me think.", response.message().thinking());
        assertEquals("42", response.message().text());
    }

    @Test
    void toolCallsSplitAcrossChunksAreAssembled() throws Exception {
        String arguments = "{\"path\":\"src/main/Main.java\",\"limit\":20}";
        server.enqueue(Script.reply().text("Reading.").toolCall("call_1", "read_file", arguments, 7)
                .toolCall("call_2", "list_files", "{}", 1));
        ToolSpecification readFile = ToolSpecification.builder().name("read_file").description("Reads a file")
                .parameters(JsonObjectSchema.builder().addStringProperty("path").required("path").build()).build();
        RecordingListener listener = new RecordingListener();

        ModelResponse response = client.stream(new ModelRequest(List.of(UserMessage.from("read it")), List.of(readFile), null),
                listener, Cancellation.NONE);

        assertEquals(FinishKind.TOOL_CALLS, response.finish());
        List<ToolExecutionRequest> calls = response.message().toolExecutionRequests();
        assertEquals(2, calls.size());
        assertEquals("call_1", calls.get(0).id());
        assertEquals("read_file", calls.get(0).name());
        assertEquals(arguments, calls.get(0).arguments());
        assertEquals("call_2", calls.get(1).id());
        assertEquals("list_files", calls.get(1).name());
        assertEquals("{}", calls.get(1).arguments());
        assertEquals(List.of("text:Reading.", "tool:0:call_1:read_file", "tool:1:call_2:list_files"), listener.events());
        JsonNode tools = server.lastRequest().tools();
        assertEquals("read_file", tools.get(0).path("function").path("name").asText());
        assertEquals("path", tools.get(0).path("function").path("parameters").path("required").get(0).asText());
    }

    @Test
    void finishReasonsAreMapped() throws Exception {
        server.enqueue(Script.reply().text("cut").finish("length"), Script.reply().text("no").finish("content_filter"));

        assertEquals(FinishKind.LENGTH, client.stream(ask("a"), ModelStreamListener.IGNORE, Cancellation.NONE).finish());
        assertEquals(FinishKind.CONTENT_FILTER, client.stream(ask("b"), ModelStreamListener.IGNORE, Cancellation.NONE).finish());
    }

    @Test
    void usageIsReturned() throws Exception {
        server.enqueue(Script.reply().text("ok").usage(123, 45));

        ModelResponse response = client.stream(ask("count"), ModelStreamListener.IGNORE, Cancellation.NONE);

        assertEquals(new TokenCount(123, 45, 168), response.usage());
        assertTrue(server.lastRequest().body().path("stream_options").path("include_usage").asBoolean());
    }

    @Test
    void optionsAndReasoningEffortAreSent() throws Exception {
        ModelClient tuned = client(ModelOptions.defaults().withTemperature(0.2).withMaxTokens(1000));

        tuned.stream(new ModelRequest(List.of(UserMessage.from("x")), List.of(), "high"), ModelStreamListener.IGNORE,
                Cancellation.NONE);

        JsonNode body = server.lastRequest().body();
        assertEquals(0.2, body.path("temperature").asDouble());
        assertEquals(1000, body.path("max_tokens").asInt());
        assertEquals("high", body.path("reasoning_effort").asText());
    }

    @Test
    void unauthorizedIsAuthAndNeverShowsTheKey() {
        server.enqueue(Script.httpError(401,
                "{\"error\":{\"message\":\"Incorrect API key provided: " + KEY + ".\",\"type\":\"invalid_request_error\"}}"));

        ModelException e = assertThrows(ModelException.class,
                () -> client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE));

        assertEquals(ModelException.Kind.AUTH, e.kind());
        assertEquals(401, e.httpStatus());
        assertTrue(e.userMessage().contains("HTTP 401"), e.userMessage());
        assertTrue(e.userMessage().contains("OPENAI_API_KEY"), e.userMessage());
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t.getMessage()).contains(KEY), "key leaked in " + t);
            assertFalse(t.toString().contains(KEY), "key leaked in " + t);
        }
        assertEquals(1, server.requests().size(), "401 is not retried");
    }

    @Test
    void notFoundIsModelNotFound() {
        server.enqueue(Script.httpError(404, null));

        ModelException e = assertThrows(ModelException.class,
                () -> client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE));

        assertEquals(ModelException.Kind.MODEL_NOT_FOUND, e.kind());
        assertTrue(e.userMessage().contains("fake-model"), e.userMessage());
    }

    @Test
    void rateLimitedTwiceThenSucceedsAfterRetries() throws Exception {
        server.enqueue(Script.httpError(429, null).times(2), Script.textReply("finally"));
        RecordingListener listener = new RecordingListener();

        ModelResponse response = client.stream(ask("hi"), listener, Cancellation.NONE);

        assertEquals("finally", response.message().text());
        assertEquals(3, server.requests().size());
        assertEquals(List.of("finally"), listener.texts());
    }

    @Test
    void serverErrorBeforeOutputIsRetried() throws Exception {
        server.enqueue(Script.httpError(503, null), Script.textReply("ok"));

        assertEquals("ok", client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE).message().text());
        assertEquals(2, server.requests().size());
    }

    @Test
    void retriesGiveUpAfterMaxAttempts() {
        server.enqueue(Script.httpError(500, null).times(10));

        ModelException e = assertThrows(ModelException.class,
                () -> client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE));

        assertEquals(ModelException.Kind.SERVER, e.kind());
        assertEquals(FAST_RETRY.maxAttempts(), server.requests().size());
    }

    @Test
    void retryAfterIsHonouredAndCapped() throws Exception {
        server.enqueue(Script.httpError(429, null).retryAfter(1), Script.textReply("ok"));
        long start = System.nanoTime();
        client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE);
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(1000), "waited for Retry-After");

        ModelClient capped = client(ModelOptions.defaults().withRetry(new RetryPolicy(2, Duration.ofMillis(10), Duration.ofMillis(200))));
        server.enqueue(Script.httpError(429, null).retryAfter(30), Script.textReply("ok"));
        start = System.nanoTime();
        capped.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE);
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(elapsedMillis >= 200, "waited the capped 200 ms, took " + elapsedMillis + " ms");
        assertTrue(elapsedMillis < 25_000, "did not wait the 30 s the server asked for, took " + elapsedMillis + " ms");
    }

    @Test
    void errorAfterFirstTokenIsNotRetried() {
        server.enqueue(Script.reply().text("Hel").streamError("server_error", "the model crashed"), Script.textReply("retried!"));
        RecordingListener listener = new RecordingListener();

        ModelException e = assertThrows(ModelException.class, () -> client.stream(ask("hi"), listener, Cancellation.NONE));

        assertEquals(ModelException.Kind.SERVER, e.kind());
        assertTrue(e.userMessage().contains("the model crashed"), e.userMessage());
        assertEquals(List.of("Hel"), listener.texts());
        assertEquals(1, server.requests().size());
    }

    @Test
    void droppedStreamIsConnectionError() {
        // The pause lets the client read "a" and "b": the JDK client may discard bytes still buffered when the socket dies.
        server.enqueue(Script.reply().text("a", "b").pause(100).dropConnection(), Script.textReply("retried!"));
        RecordingListener listener = new RecordingListener();

        ModelException e = assertThrows(ModelException.class, () -> client.stream(ask("hi"), listener, Cancellation.NONE));

        assertEquals(ModelException.Kind.CONNECTION, e.kind());
        assertEquals(List.of("a", "b"), listener.texts());
        assertEquals(1, server.requests().size(), "output had begun: no retry");
    }

    @Test
    void connectionDroppedBeforeOutputIsRetried() throws Exception {
        server.enqueue(Script.reply().dropConnection(), Script.textReply("second try"));

        assertEquals("second try", client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE).message().text());
        assertEquals(2, server.requests().size());
    }

    @Test
    void connectionRefusedIsConnectionError() {
        int port = server.port();
        server.close();
        ResolvedProvider nowhere = new ResolvedProvider("openai", ProviderKind.OPENAI_COMPATIBLE,
                "http://127.0.0.1:" + port + "/v1", KEY, "OPENAI_API_KEY");
        ModelClient refused = new LangChainModelClient(nowhere, "fake-model",
                ModelOptions.defaults().withRetry(new RetryPolicy(2, Duration.ofMillis(10), Duration.ZERO)));

        ModelException e = assertThrows(ModelException.class,
                () -> refused.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE));

        assertEquals(ModelException.Kind.CONNECTION, e.kind());
        assertTrue(e.userMessage().contains("connection refused"), e.userMessage());
    }

    @Test
    void cancelDuringSlowStreamReturnsPromptlyAndClosesTheConnection() throws Exception {
        server.enqueue(Script.reply().text("first").delay(60_000).text("second", "third")); // only a cancel ends it early
        CancellationSource cancel = new CancellationSource();
        AtomicLong cancelledAt = new AtomicLong();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        RecordingListener listener = new RecordingListener().onFirstText(text -> timer.schedule(() -> {
            cancelledAt.set(System.nanoTime());
            cancel.cancel();
        }, 100, TimeUnit.MILLISECONDS));

        try {
            ModelException e = assertThrows(ModelException.class, () -> client.stream(ask("hi"), listener, cancel));
            assertEquals(ModelException.Kind.CANCELLED, e.kind());
            assertEquals(List.of("first"), listener.texts(), "returned without waiting for the rest of the stream");
            assertTrue(server.lastRequest().awaitClientDisconnect(Duration.ofSeconds(30)), "server saw the connection close");
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void cancelBeforeAnyOutputStopsAHangingCall() throws Exception {
        server.enqueue(Script.reply().hang());
        CancellationSource cancel = new CancellationSource();
        CompletableFuture<ModelException> result = CompletableFuture.supplyAsync(() -> {
            try {
                client.stream(ask("hi"), ModelStreamListener.IGNORE, cancel);
                return null;
            } catch (ModelException e) {
                return e;
            }
        });
        server.awaitRequests(1, Duration.ofSeconds(30));

        cancel.cancel();
        ModelException e = result.get(30, TimeUnit.SECONDS); // the call hangs forever: only the cancel ends it

        assertEquals(ModelException.Kind.CANCELLED, e.kind());
        assertTrue(server.lastRequest().awaitClientDisconnect(Duration.ofSeconds(30)), "server saw the connection close");
    }

    @Test
    void alreadyCancelledCallSendsNothing() {
        CancellationSource cancel = new CancellationSource();
        cancel.cancel();

        ModelException e = assertThrows(ModelException.class, () -> client.stream(ask("hi"), ModelStreamListener.IGNORE, cancel));

        assertEquals(ModelException.Kind.CANCELLED, e.kind());
        assertTrue(server.requests().isEmpty());
    }

    @Test
    void silenceLongerThanTheIdleTimeoutIsATimeout() {
        ModelClient impatient = client(ModelOptions.defaults().withIdleTimeout(Duration.ofMillis(300)).withRetry(RetryPolicy.NONE));
        server.enqueue(Script.reply().pause(60_000).text("too late")); // waiting for it would succeed, a minute later

        ModelException e = assertThrows(ModelException.class,
                () -> impatient.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE));

        assertEquals(ModelException.Kind.TIMEOUT, e.kind());
    }

    @Test
    void concurrentCallsGetTheirOwnAnswers() throws Exception {
        server.when(FakeModelServer.lastUserMessageContains("apples")).replyAlways(Script.reply().delay(5).text("red", " apples"));
        server.when(FakeModelServer.lastUserMessageContains("sky")).replyAlways(Script.reply().delay(5).text("blue", " sky"));
        var pool = Executors.newFixedThreadPool(4);
        try {
            List<CompletableFuture<String>> answers = List.of("apples", "sky", "apples", "sky").stream()
                    .map(topic -> CompletableFuture.supplyAsync(() -> {
                        try {
                            return client.stream(ask("tell me about " + topic), ModelStreamListener.IGNORE, Cancellation.NONE)
                                    .message().text();
                        } catch (ModelException e) {
                            throw new AssertionError(e);
                        }
                    }, pool))
                    .toList();
            assertEquals(List.of("red apples", "blue sky", "red apples", "blue sky"),
                    answers.stream().map(CompletableFuture::join).toList());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void worksWhileTheCommonForkJoinPoolIsBusy() throws Exception {
        // The JDK client's sendAsync completes its future on the common pool; a caller must not depend on it.
        int workers = java.util.concurrent.ForkJoinPool.getCommonPoolParallelism();
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(workers);
        for (int i = 0; i < workers; i++) {
            CompletableFuture.runAsync(() -> {
                busy.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        try {
            assertTrue(busy.await(5, TimeUnit.SECONDS));
            server.enqueue(Script.textReply("still fine"));
            CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE).message().text();
                } catch (ModelException e) {
                    return e.toString();
                }
            }, Executors.newVirtualThreadPerTaskExecutor());
            assertEquals("still fine", answer.get(30, TimeUnit.SECONDS));
        } finally {
            release.countDown();
        }
    }

    @Test
    void streamEndingWithoutDoneOrFinishReasonIsCut() {
        server.enqueue(Script.reply().text("half").truncate(), Script.textReply("again"));

        ModelException e = assertThrows(ModelException.class,
                () -> client.stream(ask("hi"), ModelStreamListener.IGNORE, Cancellation.NONE));

        assertEquals(ModelException.Kind.CONNECTION, e.kind());
        assertTrue(e.userMessage().contains("before the answer was complete"), e.userMessage());
        assertEquals(1, server.requests().size(), "output was shown: not retried");
    }
}
