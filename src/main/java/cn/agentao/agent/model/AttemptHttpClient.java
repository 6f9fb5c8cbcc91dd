package cn.agentao.agent.model;

import cn.agentao.agent.util.TraceContext;
import cn.agentao.agent.net.Network;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.http.client.sse.ServerSentEventContext;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * LangChain4j's HTTP client seam, implemented for one {@link StreamAttempt} over a shared JDK client. Unlike
 * LangChain4j's own JDK client it can abort a request at any moment (before the response headers too), reports
 * error status, body and {@code Retry-After} to the attempt, and tells the attempt when data arrives and when the
 * body ends.
 */
final class AttemptHttpClient implements HttpClient {
    private static final int MAX_ERROR_BODY = 64 * 1024;

    private final java.net.http.HttpClient http;
    private final ExecutorService exchanges;
    private final StreamAttempt attempt;
    private final StreamReader streamReader;

    /** Reads a successful stream's body straight into the attempt, reporting the complete answer (or failing). */
    @FunctionalInterface
    interface StreamReader {
        void read(InputStream body, StreamAttempt attempt) throws IOException;
    }

    /**
     * {@code exchanges} runs each blocking exchange, response body included (virtual threads suit it). With a
     * {@code streamReader} (e.g. {@link OpenAiStreamReader}, {@link AnthropicStreamReader}) a successful stream is
     * read by it instead of through LangChain4j's per-event pipeline; null keeps LangChain4j's.
     */
    AttemptHttpClient(java.net.http.HttpClient http, ExecutorService exchanges, StreamAttempt attempt, StreamReader streamReader) {
        this.http = http;
        this.exchanges = exchanges;
        this.attempt = attempt;
        this.streamReader = streamReader;
    }

    /** A builder that hands this client to a LangChain4j model (which calls {@code build()} once). */
    HttpClientBuilder asBuilder() {
        return new HttpClientBuilder() {
            @Override
            public Duration connectTimeout() {
                return null;
            }

            @Override
            public HttpClientBuilder connectTimeout(Duration timeout) {
                return this; // timeouts are ours: see ModelOptions
            }

            @Override
            public Duration readTimeout() {
                return null;
            }

            @Override
            public HttpClientBuilder readTimeout(Duration timeout) {
                return this;
            }

            @Override
            public HttpClient build() {
                return AttemptHttpClient.this;
            }
        };
    }

    @Override
    public SuccessfulHttpResponse execute(HttpRequest request) {
        java.net.http.HttpRequest jdkRequest = toJdkRequest(request);
        Future<HttpResponse<byte[]>> exchange = exchanges.submit(() -> http.send(jdkRequest, BodyHandlers.ofByteArray()));
        attempt.onAbort(() -> exchange.cancel(true));
        try {
            HttpResponse<byte[]> response = exchange.get();
            attempt.activity();
            if (!isSuccessful(response.statusCode())) {
                String body = response.body() == null ? "" : new String(response.body(), StandardCharsets.UTF_8);
                attempt.httpFailed(response.statusCode(), body, retryAfter(response));
                throw new HttpException(response.statusCode(), body);
            }
            return toSuccessfulResponse(response, response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.cancel(true);
            throw new CancellationException("interrupted");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new CompletionException(e.getCause());
        }
    }

    /**
     * Runs the whole exchange on a thread of its own with the blocking {@code send}: {@code sendAsync} completes its
     * future on the common ForkJoin pool, which a busy application (or a caller blocked on it) can starve.
     * Aborting interrupts that thread, which cancels the exchange, and closes the body.
     */
    @Override
    public void execute(HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
        java.net.http.HttpRequest jdkRequest = toJdkRequest(request);
        Future<?> exchange = exchanges.submit(() -> stream(jdkRequest, parser, listener));
        attempt.onAbort(() -> exchange.cancel(true));
    }

    /** Sends a streaming request built without a LangChain4j model (e.g. {@link OpenAiRequest}); the stream reader reads it. */
    void send(HttpRequest request) {
        execute(request, null, attempt::onError);
    }

    private void stream(java.net.http.HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
        HttpResponse<InputStream> response;
        try {
            response = http.send(request, BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            return; // aborted: nobody is listening any more
        } catch (IOException | RuntimeException e) {
            if (!attempt.aborted()) {
                listener.onError(e);
            }
            return;
        }
        attempt.activity();
        // A proxy's 407 to CONNECT reaches us as a response without a body.
        InputStream body = response.body() != null ? response.body() : InputStream.nullInputStream();
        attempt.onAbort(() -> closeQuietly(body));
        if (!isSuccessful(response.statusCode())) {
            String text = readErrorBody(body);
            attempt.httpFailed(response.statusCode(), text, retryAfter(response));
            listener.onError(new HttpException(response.statusCode(), text));
            return;
        }
        if (streamReader != null) {
            try (body) {
                streamReader.read(body, attempt);
            } catch (IOException | RuntimeException e) {
                if (!attempt.aborted()) attempt.failed(e);
            } finally {
                attempt.streamEnded();
            }
            return;
        }
        try (body) {
            listener.onOpen(toSuccessfulResponse(response, null));
            parser.parse(body, new ActivityReportingListener(listener));
            listener.onClose();
        } catch (IOException | RuntimeException e) {
            listener.onError(e);
        } finally {
            attempt.streamEnded();
        }
    }

    /** Passes events on, telling the attempt that the provider is alive. */
    private final class ActivityReportingListener implements ServerSentEventListener {
        private final ServerSentEventListener delegate;

        ActivityReportingListener(ServerSentEventListener delegate) {
            this.delegate = delegate;
        }

        @Override
        public void onOpen(SuccessfulHttpResponse response) {
            delegate.onOpen(response);
        }

        @Override
        public void onEvent(ServerSentEvent event, ServerSentEventContext context) {
            attempt.activity();
            delegate.onEvent(event, context);
        }

        @Override
        public void onEvent(ServerSentEvent event) {
            attempt.activity();
            delegate.onEvent(event);
        }

        @Override
        public void onError(Throwable throwable) {
            delegate.onError(throwable);
        }

        @Override
        public void onClose() {
            delegate.onClose();
        }
    }

    private static java.net.http.HttpRequest toJdkRequest(HttpRequest request) {
        if (!request.formDataFields().isEmpty() || !request.formDataFiles().isEmpty()) {
            throw new UnsupportedOperationException("multipart requests are not used by chat models");
        }
        URI target = URI.create(request.url());
        java.net.http.HttpRequest.Builder builder = java.net.http.HttpRequest.newBuilder(target);
        request.headers().forEach((name, values) -> {
            if (values != null) {
                values.forEach(value -> builder.header(name, value));
            }
        });
        builder.method(request.method().name(), request.body() == null
                ? java.net.http.HttpRequest.BodyPublishers.noBody()
                : java.net.http.HttpRequest.BodyPublishers.ofString(request.body()));
        String traceparent = TraceContext.current(); // W3C trace context of the ACP request this call serves
        if (traceparent != null) builder.setHeader("traceparent", traceparent);
        return Network.get().authorize(builder, target).build();
    }

    private static SuccessfulHttpResponse toSuccessfulResponse(HttpResponse<?> response, byte[] body) {
        return SuccessfulHttpResponse.builder()
                .statusCode(response.statusCode())
                .headers(response.headers().map())
                .body(body)
                .build();
    }

    private static boolean isSuccessful(int status) {
        return status >= 200 && status < 300;
    }

    private static String readErrorBody(InputStream body) {
        try (body) {
            return new String(body.readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** {@code retry-after-ms} (OpenAI), or {@code Retry-After} as seconds or an HTTP date; null when absent. */
    static Duration retryAfter(HttpResponse<?> response) {
        try {
            var millis = response.headers().firstValue("retry-after-ms");
            if (millis.isPresent()) {
                return Duration.ofMillis(Math.max(0, (long) Double.parseDouble(millis.get().strip())));
            }
            var value = response.headers().firstValue("retry-after");
            if (value.isEmpty()) {
                return null;
            }
            String text = value.get().strip();
            if (text.chars().allMatch(Character::isDigit)) {
                return Duration.ofSeconds(Long.parseLong(text));
            }
            Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME));
            return until.isNegative() ? Duration.ZERO : until;
        } catch (NumberFormatException | DateTimeParseException e) {
            return null;
        }
    }

    private static void closeQuietly(InputStream stream) {
        try {
            stream.close();
        } catch (IOException ignored) {
            // closing is best effort
        }
    }
}
