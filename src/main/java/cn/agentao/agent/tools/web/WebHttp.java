package cn.agentao.agent.tools.web;

import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.net.Network;
import cn.agentao.agent.net.NetworkFailures;
import cn.agentao.agent.util.Cancellation;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The web tools' one HTTP set-up: a client with the process's proxy and trusted CAs ({@link Network}) that never
 * follows a redirect by itself (the caller judges every hop with the network guard), and a send that the turn's
 * cancellation stops. Built on first use: an HTTP client sets up TLS, which must not delay the agent's start.
 */
final class WebHttp {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private WebHttp() {}

    private static final class Holder {
        static final HttpClient CLIENT = Network.get().configure(HttpClient.newBuilder(), true)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(CONNECT_TIMEOUT)
                .build();
    }

    /** A GET of {@code target} with the web tools' timeout (send adds the proxy's credentials when one is configured). */
    static HttpRequest.Builder get(URI target) {
        return HttpRequest.newBuilder(target).timeout(REQUEST_TIMEOUT).GET();
    }

    /** A POST of the JSON {@code body} to {@code target}, allowed {@code timeout} for the whole answer. */
    static HttpRequest.Builder postJson(URI target, String body, Duration timeout) {
        return HttpRequest.newBuilder(target).timeout(timeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Sends {@code builder}'s request to {@code target}; a cancelled turn ends the wait with InterruptedException. */
    static HttpResponse<InputStream> send(HttpRequest.Builder builder, URI target, ToolContext ctx)
            throws IOException, InterruptedException {
        HttpRequest request = Network.get().authorize(builder, target).build();
        CompletableFuture<HttpResponse<InputStream>> future =
                Holder.CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
        Cancellation.Registration onCancel = ctx.cancellation().onCancel(() -> future.cancel(true));
        try {
            while (true) {
                if (ctx.cancellation().isCancelled()) throw new InterruptedException("fetch cancelled");
                try {
                    return future.get(100, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // keep waiting; the request's own timeout bounds this
                }
            }
        } catch (CancellationException e) {
            throw new InterruptedException("fetch cancelled");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (ctx.cancellation().isCancelled() || cause instanceof CancellationException) {
                throw new InterruptedException("fetch cancelled");
            }
            String network = NetworkFailures.describe(cause);
            if (network != null) throw new IOException("cannot fetch " + target + Network.get().via(target) + ": " + network, cause);
            if (cause instanceof IOException io) throw io;
            throw new IOException(cause);
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        } finally {
            onCancel.close();
        }
    }

    /** A body read up to {@code max} bytes; {@code cut} when there was more. */
    record Body(byte[] bytes, boolean cut) {}

    /** Reads {@code in} (and closes it) up to {@code max} bytes, stopping when the turn is cancelled. */
    static Body read(InputStream body, int max, ToolContext ctx) throws IOException, InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = body) {
            byte[] buf = new byte[16384];
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (Thread.currentThread().isInterrupted() || ctx.cancellation().isCancelled()) {
                    throw new InterruptedException("fetch cancelled");
                }
                int room = max - out.size();
                out.write(buf, 0, Math.min(n, room));
                if (n > room) return new Body(out.toByteArray(), true);
            }
        }
        return new Body(out.toByteArray(), false);
    }
}
