package cn.agentao.agent.connect.a2a;

import cn.agentao.agent.net.Network;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * A thin A2A 0.3 JSON-RPC client over the JDK's HttpClient: reads the agent card, streams {@code message/stream}
 * (Server-Sent Events) and cancels tasks. Failures are {@link A2aClientException}s in plain words.
 *
 * <p>It sends only where the user configured the agent: the origin of its {@code url} or of one of its
 * {@code allowedEndpoints} (a card may name any endpoint), and only to addresses {@link NetworkGuard} lets through,
 * as for {@code web_fetch}; an address the user wrote as such ({@code localhost}, an IP literal) is what the user
 * chose and passes unless the guard always refuses it (cloud metadata, unspecified, multicast, reserved).
 */
final class A2aClient {
    static final String CARD_PATH = "/.well-known/agent-card.json";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** How long a stream may take to start (its events may then take as long as they need). */
    private static final Duration HEADERS_TIMEOUT = Duration.ofSeconds(60);

    /** What lets through an address the user wrote: everything but the always-refused (metadata, …). */
    private static final NetworkGuard WRITTEN_ADDRESS = new NetworkGuard(NetworkGuard.HostResolver.SYSTEM, true);

    private final URI base;
    private final List<URI> allowedEndpoints;
    private final String token;
    private final NetworkGuard guard;
    private final HttpClient http;

    A2aClient(URI base, List<URI> allowedEndpoints, String token, NetworkGuard guard) {
        this.base = base;
        this.allowedEndpoints = List.copyOf(allowedEndpoints);
        this.token = token;
        this.guard = guard;
        // No redirects: the JDK would carry the bearer token to wherever one points. Proxy and CAs as for every request.
        this.http = Network.get().configure(HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER), "https".equalsIgnoreCase(base.getScheme())).build();
    }

    /** The agent card (GET {base}/.well-known/agent-card.json). */
    JsonNode card(Duration timeout) throws A2aClientException {
        String b = base.toString();
        URI uri = URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + CARD_PATH);
        Optional<String> refused = refusal(uri);
        if (refused.isPresent()) throw new A2aClientException(refused.get());
        HttpRequest.Builder rq = HttpRequest.newBuilder(uri).timeout(timeout).GET().header("Accept", "application/json");
        authorize(rq, uri);
        try {
            HttpResponse<String> r = http.send(rq.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 == 3) throw new A2aClientException("its agent card at " + uri + " answered HTTP " + r.statusCode()
                    + ", a redirect to " + r.headers().firstValue("Location").orElse("nowhere")
                    + "; redirects are not followed (a token must not follow them): set its url in config.json to the new address");
            if (r.statusCode() != 200) throw new A2aClientException("its agent card at " + uri + " answered HTTP " + r.statusCode());
            JsonNode card = Json.mapper().readTree(r.body());
            if (card == null || !card.path("url").isTextual()) throw new A2aClientException("its agent card at " + uri + " has no endpoint url");
            return card;
        } catch (IOException e) {
            throw new A2aClientException("it cannot be reached at " + uri + " (" + describe(e) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new A2aClientException("interrupted");
        }
    }

    /**
     * The card's JSON-RPC endpoint the client may use: its {@code url}, else the first JSON-RPC one of its
     * {@code additionalInterfaces} that is allowed; none allowed: why the {@code url} is not.
     */
    URI endpoint(JsonNode card) throws A2aClientException {
        List<String> candidates = new ArrayList<>();
        candidates.add(card.path("url").asText());
        for (JsonNode i : card.path("additionalInterfaces")) {
            if (i.path("url").isTextual() && "JSONRPC".equalsIgnoreCase(i.path("transport").asText())) candidates.add(i.path("url").asText());
        }
        String first = null;
        for (String c : candidates) {
            URI uri;
            try {
                uri = new URI(c);
            } catch (URISyntaxException e) {
                if (first == null) first = "its agent card names the endpoint \"" + c + "\", not a URL";
                continue;
            }
            Optional<String> refused = refusal(uri);
            if (refused.isEmpty()) return uri;
            if (first == null) first = refused.get();
        }
        throw new A2aClientException(first);
    }

    /** Why nothing may be sent to {@code target}, or empty when it may (see the class comment). */
    Optional<String> refusal(URI target) {
        if (!mayReceive(target)) {
            return Optional.of("its agent card names the endpoint " + target + ", not on " + origin(base) + " where it was configured; "
                    + "nothing is sent there. If that endpoint is the agent's, add \"" + origin(target) + "\" to its allowedEndpoints in config.json");
        }
        String host = target.getHost().toLowerCase(java.util.Locale.ROOT);
        boolean written = host.equals("localhost") || host.startsWith("[") || host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
        return (written ? WRITTEN_ADDRESS : guard).refusal(target).map(why -> "the address " + origin(target) + " is refused: " + why);
    }

    /** On the configured origin or one the user listed: the token may go there too. */
    private boolean mayReceive(URI target) {
        return sameOrigin(target, base) || allowedEndpoints.stream().anyMatch(a -> sameOrigin(target, a));
    }

    private static String origin(URI u) {
        return u.getScheme() + "://" + u.getRawAuthority();
    }

    /**
     * Sends {@code message/stream} to {@code endpoint} and hands each event's {@code result} to {@code events}
     * until the stream ends; a JSON-RPC error becomes an exception. Cancellation closes the stream.
     */
    void stream(URI endpoint, ObjectNode message, Consumer<JsonNode> events, Cancellation cancel)
            throws A2aClientException, CancelledException {
        ObjectNode params = Json.object();
        params.set("message", message);
        Optional<String> refused = refusal(endpoint);
        if (refused.isPresent()) throw new A2aClientException(refused.get());
        HttpRequest.Builder rq = request(endpoint, "message/stream", params).header("Accept", "text/event-stream")
                .timeout(HEADERS_TIMEOUT);
        InputStream body = null;
        try {
            HttpResponse<InputStream> r = http.send(rq.build(), HttpResponse.BodyHandlers.ofInputStream());
            body = r.body();
            InputStream stream = body;
            try (Cancellation.Registration closeOnCancel = cancel.onCancel(() -> closeQuietly(stream))) {
                if (r.statusCode() == 401 || r.statusCode() == 403) throw new A2aClientException("it refused our credentials (HTTP " + r.statusCode() + ")");
                if (r.statusCode() != 200) throw new A2aClientException("it answered HTTP " + r.statusCode());
                String type = r.headers().firstValue("Content-Type").orElse("");
                if (!type.startsWith("text/event-stream")) {
                    // an error (or a non-streaming answer) comes as one JSON-RPC response
                    dispatch(Json.mapper().readTree(stream), events);
                    return;
                }
                BufferedReader lines = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
                StringBuilder data = new StringBuilder();
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.isEmpty()) {
                        if (!data.isEmpty()) dispatch(Json.mapper().readTree(data.toString()), events);
                        data.setLength(0);
                    } else if (line.startsWith("data:")) {
                        if (!data.isEmpty()) data.append('\n');
                        data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
                    }
                }
                if (!data.isEmpty()) dispatch(Json.mapper().readTree(data.toString()), events);
            }
        } catch (IOException e) {
            if (cancel.isCancelled()) throw new CancelledException();
            throw new A2aClientException("the connection failed (" + describe(e) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancelledException();
        } finally {
            if (body != null) closeQuietly(body);
        }
        if (cancel.isCancelled()) throw new CancelledException();
    }

    private static void dispatch(JsonNode response, Consumer<JsonNode> events) throws A2aClientException {
        if (response == null) return;
        if (response.has("error")) {
            JsonNode err = response.path("error");
            throw new A2aClientException("it answered with error " + err.path("code").asInt() + ": " + err.path("message").asText());
        }
        events.accept(response.path("result"));
    }

    /** {@code tasks/cancel}, best effort (the turn is being cancelled anyway). */
    void cancel(URI endpoint, String taskId) {
        ObjectNode params = Json.object().put("id", taskId);
        if (refusal(endpoint).isPresent()) return;
        try {
            http.send(request(endpoint, "tasks/cancel", params).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            // the remote task ends on its own or stays; nothing more to do
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private HttpRequest.Builder request(URI endpoint, String method, ObjectNode params) {
        ObjectNode body = Json.object().put("jsonrpc", "2.0").put("id", UUID.randomUUID().toString()).put("method", method);
        body.set("params", params);
        HttpRequest.Builder rq = HttpRequest.newBuilder(endpoint).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        authorize(rq, endpoint);
        return rq;
    }

    /** The bearer token, only ever to the origins the user configured; the proxy's credentials when proxied. */
    private void authorize(HttpRequest.Builder rq, URI target) {
        if (token != null && mayReceive(target)) rq.header("Authorization", "Bearer " + token);
        Network.get().authorize(rq, target);
    }

    static boolean sameOrigin(URI a, URI b) {
        return a.getScheme() != null && a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost() != null
                && a.getHost().equalsIgnoreCase(b.getHost()) && port(a) == port(b);
    }

    private static int port(URI u) {
        return u.getPort() != -1 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException ignored) {
            // closing to stop reading
        }
    }

    private static String describe(IOException e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m);
    }
}
