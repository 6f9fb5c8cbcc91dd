package cn.agentao.agent.model;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.net.Network;
import cn.agentao.agent.util.Cancellation;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.model.anthropic.AnthropicTokenUsage;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ModelClient} on LangChain4j's streaming chat models. Constructing one is free; the JDK HTTP client is
 * built by {@link #prepare} or the first call and shared by later ones. Each attempt gets a fresh LangChain4j model bound to an
 * {@link AttemptHttpClient}, so cancellation and timeouts act on exactly that attempt's connection. An OpenAI-compatible
 * call's request is written by {@link OpenAiRequest} instead (the same request, without LangChain4j's first-use cost
 * on a fresh agent's first prompt). Retries
 * (rate limits, server errors, lost connections) happen only while nothing has reached the listener.
 */
public final class LangChainModelClient implements ModelClient {
    private static final Logger LOG = LoggerFactory.getLogger(LangChainModelClient.class);

    private final ResolvedProvider provider;
    private final String model;
    private final ModelOptions options;
    private final StreamingModelFactory models;
    private final ModelErrors errors;
    private final boolean images;
    private volatile Transport transport;

    /** The JDK client and the (virtual) threads that run exchanges, built on first use. */
    private record Transport(HttpClient http, ExecutorService exchanges) {}

    public LangChainModelClient(ResolvedProvider provider, String model, ModelOptions options) {
        this(provider, model, options, KnownModels.acceptsImages(model));
    }

    /** @param images whether the model accepts images; when not, each image in a request is sent as a sentence */
    public LangChainModelClient(ResolvedProvider provider, String model, ModelOptions options, boolean images) {
        this.images = images;
        this.provider = provider;
        this.model = model;
        this.options = options;
        this.models = new StreamingModelFactory(provider, model, options);
        this.errors = new ModelErrors(provider, model);
    }

    public ResolvedProvider provider() {
        return provider;
    }

    public String model() {
        return model;
    }

    @Override
    public ModelResponse stream(ModelRequest request, ModelStreamListener listener, Cancellation cancel)
            throws ModelException {
        if (!images) request = ImageParts.asText(request);
        RetryPolicy retry = options.retry();
        for (int attemptNumber = 1; ; attemptNumber++) {
            if (cancel.isCancelled()) {
                throw errors.cancelled();
            }
            StreamAttempt attempt = new StreamAttempt(errors);
            Cancellation.Registration cancelHook = cancel.onCancel(attempt::cancel);
            try {
                return toModelResponse(run(attempt, request, listener));
            } catch (ModelException e) {
                if (e.kind() == ModelException.Kind.CANCELLED || !e.retryable() || attempt.outputStarted()
                        || attemptNumber >= retry.maxAttempts()) {
                    throw e;
                }
                Duration wait = retry.backoff(attemptNumber, attempt.retryAfter());
                LOG.info("model call to {} failed ({}); retry {} of {} in {} ms", provider.id(), e.kind(), attemptNumber,
                        retry.maxAttempts() - 1, wait.toMillis());
                sleep(wait, cancel);
            } finally {
                cancelHook.close();
            }
        }
    }

    @Override
    public void prepare() {
        if (transport != null) return;
        Thread.ofVirtual().name("model-http-setup").start(this::prepareQuietly);
        // the answer is read with Jackson's streaming parser, whose first use costs ~12 ms (see Json.initParsers):
        // paid here, beside the HTTP set-up, rather than when the first streamed event arrives
        Thread.ofVirtual().name("json-parser-setup").start(Json::initParsers);
    }

    private void prepareQuietly() {
        try {
            transport();
        } catch (RuntimeException e) {
            LOG.debug("setting up the HTTP client failed; the call reports it: {}", e.toString());
        }
    }

    private ChatResponse run(StreamAttempt attempt, ModelRequest request, ModelStreamListener listener)
            throws ModelException {
        Transport t = transport();
        AttemptHttpClient http = new AttemptHttpClient(t.http(), t.exchanges(), attempt, streamReader(provider.kind()));
        // OpenAI-compatible: our own request writer, when it covers the call; otherwise LangChain4j builds the request.
        HttpRequest lean = provider.kind() == ProviderKind.OPENAI_COMPATIBLE ? OpenAiRequest.of(provider, model, options, request) : null;
        if (lean != null) {
            http.send(lean);
            return attempt.dispatch(listener, options.idleTimeout());
        }
        ChatRequest chatRequest = ChatRequest.builder()
                .messages(request.messages())
                .toolSpecifications(request.tools().isEmpty() ? null : request.tools())
                .build();
        try {
            models.create(http.asBuilder(), request.reasoningEffort()).chat(chatRequest, attempt);
        } catch (RuntimeException e) {
            // LangChain4j validates before sending: an unsupported message or parameter ends up here.
            throw errors.failure(e);
        }
        return attempt.dispatch(listener, options.idleTimeout());
    }

    /** Our own lean readers where we have one; Ollama's (newline-delimited JSON) stays with LangChain4j. */
    static AttemptHttpClient.StreamReader streamReader(ProviderKind kind) {
        return switch (kind) {
            case OPENAI_COMPATIBLE -> OpenAiStreamReader::read;
            case ANTHROPIC -> AnthropicStreamReader::read;
            case OLLAMA -> null;
        };
    }

    /**
     * The transport for this client's settings (built once, by {@link #prepare} or the first call, whichever comes
     * first: the other waits for it), shared process-wide: one selector thread and one connection pool
     * per (connect timeout, HTTP version, TLS), however many sessions and models there are. Proxy and trusted CAs
     * come from {@link Network}.
     */
    private Transport transport() {
        Transport t = transport;
        if (t == null) {
            boolean plainHttp = "http".equalsIgnoreCase(URI.create(provider.baseUrl()).getScheme());
            // No h2c upgrade dance with local plain-HTTP servers.
            HttpClient.Version version = plainHttp ? HttpClient.Version.HTTP_1_1 : HttpClient.Version.HTTP_2;
            t = TRANSPORTS.computeIfAbsent(new TransportKey(options.connectTimeout(), version, !plainHttp), LangChainModelClient::newTransport);
            transport = t;
        }
        return t;
    }

    /** {@code tls}: the client gets the TLS context with the extra CAs (plain-HTTP providers never need it). */
    private record TransportKey(Duration connectTimeout, HttpClient.Version version, boolean tls) {
        // Written out: a record's generated equals and hashCode are bootstrapped on first use (java.lang.runtime.ObjectMethods),
        // which spins ~13 method-handle classes that no AOT cache keeps, on a fresh agent's first prompt.
        @Override
        public boolean equals(Object o) {
            return o instanceof TransportKey k && k.connectTimeout.equals(connectTimeout) && k.version == version && k.tls == tls;
        }

        @Override
        public int hashCode() {
            return (connectTimeout.hashCode() * 31 + version.hashCode()) * 31 + Boolean.hashCode(tls);
        }
    }

    private static final Map<TransportKey, Transport> TRANSPORTS = new ConcurrentHashMap<>();

    private static Transport newTransport(TransportKey key) {
        ExecutorService exchanges = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("model-http-", 0).factory());
        HttpClient http = Network.get().configure(HttpClient.newBuilder(), key.tls())
                .connectTimeout(key.connectTimeout())
                .version(key.version())
                .executor(exchanges)
                .build();
        return new Transport(http, exchanges);
    }

    private void sleep(Duration wait, Cancellation cancel) throws ModelException {
        CountDownLatch woken = new CountDownLatch(1);
        Cancellation.Registration wakeHook = cancel.onCancel(woken::countDown);
        try {
            woken.await(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw errors.cancelled();
        } finally {
            wakeHook.close();
        }
        if (cancel.isCancelled()) {
            throw errors.cancelled();
        }
    }

    static ModelResponse toModelResponse(ChatResponse response) {
        AiMessage message = response.aiMessage();
        return new ModelResponse(message, finishKind(response.finishReason(), message.hasToolExecutionRequests()),
                tokenCount(response.tokenUsage()));
    }

    static FinishKind finishKind(FinishReason reason, boolean hasToolCalls) {
        if (reason == FinishReason.LENGTH) {
            return FinishKind.LENGTH;
        }
        if (reason == FinishReason.CONTENT_FILTER) {
            return FinishKind.CONTENT_FILTER;
        }
        if (reason == FinishReason.TOOL_EXECUTION || hasToolCalls) {
            return FinishKind.TOOL_CALLS; // some servers say "stop" next to tool calls
        }
        return reason == FinishReason.STOP ? FinishKind.STOP : FinishKind.OTHER;
    }

    /**
     * Normalised across providers: Anthropic counts cache reads and writes apart from {@code input_tokens}; they
     * are part of the prompt (and of the context) all the same.
     */
    static TokenCount tokenCount(TokenUsage usage) {
        if (usage == null || usage.inputTokenCount() == null && usage.outputTokenCount() == null) {
            return null;
        }
        int input = usage.inputTokenCount() == null ? 0 : usage.inputTokenCount();
        int output = usage.outputTokenCount() == null ? 0 : usage.outputTokenCount();
        int cached = 0;
        if (usage instanceof AnthropicTokenUsage a) {
            cached = a.cacheReadInputTokens() == null ? 0 : a.cacheReadInputTokens();
            input += cached + (a.cacheCreationInputTokens() == null ? 0 : a.cacheCreationInputTokens());
            return new TokenCount(input, output, input + output, cached);
        }
        if (usage instanceof OpenAiTokenUsage o && o.inputTokensDetails() != null && o.inputTokensDetails().cachedTokens() != null) {
            cached = o.inputTokensDetails().cachedTokens();
        }
        int total = usage.totalTokenCount() == null ? input + output : usage.totalTokenCount();
        return new TokenCount(input, output, total, cached);
    }

    @Override
    public String toString() {
        return "LangChainModelClient[" + provider.id() + "/" + model + "]";
    }
}
