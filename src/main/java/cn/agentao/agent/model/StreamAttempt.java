package cn.agentao.agent.model;

import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialThinkingContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.PartialToolCallContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP attempt of a model call. LangChain4j and the transport report into it from their own threads; the
 * calling thread drains those reports in {@link #dispatch} and hands them to the listener. Keeping the listener on
 * the caller's thread makes cancellation exact: once {@link #cancel()} ran, the listener hears nothing more.
 */
final class StreamAttempt implements StreamingChatResponseHandler {
    private static final Logger LOG = LoggerFactory.getLogger(StreamAttempt.class);

    private sealed interface Event {}

    private record Text(String delta) implements Event {}

    private record Reasoning(String delta) implements Event {}

    private record ToolCallStarted(int index, String id, String name) implements Event {}

    private record Completed(ChatResponse response) implements Event {}

    private record Failed(Throwable error) implements Event {}

    private record HttpFailed(int status, String body) implements Event {}

    private record StreamEnded() implements Event {}

    private record Cancelled() implements Event {}

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final Set<Integer> startedToolCalls = ConcurrentHashMap.newKeySet();
    private final List<Runnable> abortActions = new CopyOnWriteArrayList<>();
    private final ModelErrors errors;
    private volatile boolean aborted;
    private volatile boolean cancelled;
    private volatile long lastActivityNanos = System.nanoTime();
    private volatile Duration retryAfter;
    private boolean outputStarted;

    StreamAttempt(ModelErrors errors) {
        this.errors = errors;
    }

    // ---- reports from LangChain4j (StreamingChatResponseHandler) ----

    @Override
    public void onPartialResponse(PartialResponse partialResponse, PartialResponseContext context) {
        events.add(new Text(partialResponse.text()));
    }

    @Override
    public void onPartialThinking(PartialThinking partialThinking, PartialThinkingContext context) {
        events.add(new Reasoning(partialThinking.text()));
    }

    @Override
    public void onPartialToolCall(PartialToolCall partialToolCall, PartialToolCallContext context) {
        toolCallStarted(partialToolCall.index(), partialToolCall.id(), partialToolCall.name());
    }

    @Override
    public void onCompleteToolCall(CompleteToolCall completeToolCall) {
        toolCallStarted(completeToolCall.index(), completeToolCall.toolExecutionRequest().id(),
                completeToolCall.toolExecutionRequest().name());
    }

    // ---- reports from our own stream readers (OpenAiStreamReader, AnthropicStreamReader), on the exchange thread ----

    void text(String delta) {
        events.add(new Text(delta));
    }

    void reasoning(String delta) {
        events.add(new Reasoning(delta));
    }

    void completed(ChatResponse response) {
        events.add(new Completed(response));
    }

    void failed(Throwable error) {
        events.add(new Failed(error));
    }

    void toolCallStarted(int index, String id, String name) {
        if (startedToolCalls.add(index)) {
            events.add(new ToolCallStarted(index, id, name));
        }
    }

    /**
     * OpenAI-compatible servers (vLLM, OpenRouter, LiteLLM) report failures mid-stream as
     * {@code data: {"error": {...}}}, which LangChain4j passes here unmapped; anything else unmapped is ignored.
     */
    @Override
    public void onUnmappedRawEvent(Object rawEvent) {
        if (rawEvent instanceof ServerSentEvent event && event.data() != null && event.data().contains("\"error\"")) {
            ProviderErrorEvent error = ProviderErrorEvent.parse(event.data());
            if (error != null) {
                events.add(new Failed(error));
            }
        }
    }

    @Override
    public void onCompleteResponse(ChatResponse completeResponse) {
        events.add(new Completed(completeResponse));
    }

    @Override
    public void onError(Throwable error) {
        events.add(new Failed(error));
    }

    // ---- reports from the transport (AttemptHttpClient) ----

    /** Something arrived from the provider: response headers or a streamed event. */
    void activity() {
        lastActivityNanos = System.nanoTime();
    }

    /**
     * The provider answered with an error status. Reported ahead of LangChain4j's own error so the status and body
     * are exact; {@code retryAfter} may be null.
     */
    void httpFailed(int status, String body, Duration retryAfter) {
        this.retryAfter = retryAfter;
        events.add(new HttpFailed(status, body));
    }

    /** The response body ended; if no complete response was reported before this, the answer is truncated. */
    void streamEnded() {
        events.add(new StreamEnded());
    }

    /** Registers how to tear down the transport; runs at once if the attempt was already aborted. */
    void onAbort(Runnable action) {
        abortActions.add(action);
        if (aborted) {
            runQuietly(action);
        }
    }

    boolean aborted() {
        return aborted;
    }

    // ---- the caller's side ----

    /** Stops the attempt from any thread: closes the connection and wakes the dispatching thread. */
    void cancel() {
        cancelled = true;
        abort();
        events.add(new Cancelled());
    }

    private void abort() {
        aborted = true;
        abortActions.forEach(StreamAttempt::runQuietly);
    }

    /** Whether something already reached the listener, after which a failure must not be retried. */
    boolean outputStarted() {
        return outputStarted;
    }

    /** The server's {@code Retry-After} from an error answer, or null. */
    Duration retryAfter() {
        return retryAfter;
    }

    /** Feeds the listener until the response is complete; must be called by the thread that started the attempt. */
    ChatResponse dispatch(ModelStreamListener listener, Duration idleTimeout) throws ModelException {
        boolean finished = false;
        try {
            while (true) {
                if (cancelled) {
                    throw errors.cancelled();
                }
                long idleLeft = idleTimeout.toNanos() - (System.nanoTime() - lastActivityNanos);
                if (idleLeft <= 0) {
                    throw errors.idleTimeout(idleTimeout, outputStarted);
                }
                Event event = events.poll(idleLeft, TimeUnit.NANOSECONDS);
                if (event == null || cancelled) {
                    continue;
                }
                switch (event) {
                    case Text text -> {
                        outputStarted = true;
                        listener.onText(text.delta());
                    }
                    case Reasoning reasoning -> {
                        outputStarted = true;
                        listener.onReasoning(reasoning.delta());
                    }
                    case ToolCallStarted call -> {
                        outputStarted = true;
                        listener.onToolCallStarted(call.index(), call.id(), call.name());
                    }
                    case Completed completed -> {
                        finished = true;
                        return completed.response();
                    }
                    case HttpFailed failed -> throw errors.httpError(failed.status(), failed.body());
                    case Failed failed -> throw errors.failure(failed.error());
                    case StreamEnded ended -> throw errors.streamEndedEarly();
                    case Cancelled c -> throw errors.cancelled();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw errors.cancelled();
        } finally {
            if (!finished) {
                abort();
            }
        }
    }

    private static void runQuietly(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.debug("aborting a model call failed", e);
        }
    }
}
