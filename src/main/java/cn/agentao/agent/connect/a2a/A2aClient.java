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
 * A thin A2A client over the JDK's HttpClient: reads the agent card, streams a message's task (Server-Sent Events)
 * and cancels tasks. It speaks A2A 1.0 when the card offers it (its {@code supportedInterfaces}: JSON-RPC first, then
 * HTTP+JSON, with {@code A2A-Version: 1.0}) and 0.3's JSON-RPC otherwise; the events it hands on are in 0.3's shapes
 * whichever it spoke. Failures are {@link A2aClientException}s in plain words.
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

    /** Where and how to talk to the agent: a binding ({@link #JSONRPC} or {@link #HTTP_JSON}) of a protocol version. */
    record Endpoint(URI uri, String binding, String version) {
        static Endpoint v03(URI uri) { return new Endpoint(uri, JSONRPC, V03); }

        boolean v1() { return V1.equals(version); }
    }

    static final String JSONRPC = "JSONRPC";
    static final String HTTP_JSON = "HTTP+JSON";
    static final String V1 = "1.0";
    static final String V03 = "0.3";

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
            if (card == null || !(card.path("url").isTextual() || card.path("supportedInterfaces").isArray())) {
                throw new A2aClientException("its agent card at " + uri + " names no endpoint (neither url nor supportedInterfaces)");
            }
            return card;
        } catch (IOException e) {
            throw new A2aClientException("it cannot be reached at " + uri + " (" + describe(e) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new A2aClientException("interrupted");
        }
    }

    /**
     * The card's endpoint the client may use, in this order: a 1.0 JSON-RPC interface of its {@code supportedInterfaces},
     * a 1.0 HTTP+JSON one, then 0.3's JSON-RPC ({@code url}, {@code additionalInterfaces}, a 0.3 interface); the first
     * that is allowed. None allowed: why the first is not.
     */
    Endpoint endpoint(JsonNode card) throws A2aClientException {
        List<String[]> candidates = new ArrayList<>(); // url, binding, version
        for (String binding : List.of(JSONRPC, HTTP_JSON)) {
            for (JsonNode i : card.path("supportedInterfaces")) {
                if (i.path("url").isTextual() && binding.equalsIgnoreCase(i.path("protocolBinding").asText())
                        && isV1(i.path("protocolVersion").asText())) candidates.add(new String[] {i.path("url").asText(), binding, V1});
            }
        }
        if (card.path("url").isTextual()) candidates.add(new String[] {card.path("url").asText(), JSONRPC, V03});
        for (JsonNode i : card.path("additionalInterfaces")) {
            if (i.path("url").isTextual() && JSONRPC.equalsIgnoreCase(i.path("transport").asText())) candidates.add(new String[] {i.path("url").asText(), JSONRPC, V03});
        }
        for (JsonNode i : card.path("supportedInterfaces")) {
            if (i.path("url").isTextual() && JSONRPC.equalsIgnoreCase(i.path("protocolBinding").asText())
                    && i.path("protocolVersion").asText().startsWith("0.3")) candidates.add(new String[] {i.path("url").asText(), JSONRPC, V03});
        }
        String first = null;
        for (String[] c : candidates) {
            URI uri;
            try {
                uri = new URI(c[0]);
            } catch (URISyntaxException e) {
                if (first == null) first = "its agent card names the endpoint \"" + c[0] + "\", not a URL";
                continue;
            }
            Optional<String> refused = refusal(uri);
            if (refused.isEmpty()) return new Endpoint(uri, c[1], c[2]);
            if (first == null) first = refused.get();
        }
        throw new A2aClientException(first != null ? first : "its agent card names no JSON-RPC or HTTP+JSON interface of A2A 1.0 or 0.3");
    }

    /** Whether an interface's protocolVersion is 1.0's (1.0, 1.0.1, …). */
    private static boolean isV1(String version) { return version.equals(V1) || version.startsWith(V1 + "."); }

    /** Why nothing may be sent to {@code target}, or empty when it may (see the class comment). */
    Optional<String> refusal(URI target) {
        if (target.getHost() == null) return Optional.of("its agent card names the endpoint " + target + ", not an http(s) URL");
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
     * Streams the task of {@code message} (0.3's shape; sent in the endpoint's) and hands each event to {@code events}
     * in 0.3's shape until the stream ends; an error becomes an exception. Cancellation closes the stream.
     */
    void stream(Endpoint endpoint, ObjectNode message, Consumer<JsonNode> events, Cancellation cancel)
            throws A2aClientException, CancelledException {
        ObjectNode params = Json.object();
        params.set("message", endpoint.v1() ? messageV1(message) : message);
        Optional<String> refused = refusal(endpoint.uri());
        if (refused.isPresent()) throw new A2aClientException(refused.get());
        Consumer<JsonNode> handOn = endpoint.v1() ? e -> events.accept(eventV03(e)) : events;
        HttpRequest.Builder rq = (endpoint.binding().equals(HTTP_JSON) ? rest(endpoint, "/message:stream", params)
                : request(endpoint, endpoint.v1() ? "SendStreamingMessage" : "message/stream", params))
                .header("Accept", "text/event-stream").timeout(HEADERS_TIMEOUT);
        InputStream body = null;
        try {
            HttpResponse<InputStream> r = http.send(rq.build(), HttpResponse.BodyHandlers.ofInputStream());
            body = r.body();
            InputStream stream = body;
            try (Cancellation.Registration closeOnCancel = cancel.onCancel(() -> closeQuietly(stream))) {
                if (r.statusCode() == 401 || r.statusCode() == 403) throw new A2aClientException("it refused our credentials (HTTP " + r.statusCode() + ")");
                if (r.statusCode() != 200) {
                    // HTTP+JSON's errors are an HTTP status with a google.rpc.Status body
                    String why = endpoint.binding().equals(HTTP_JSON) ? errorMessage(stream) : null;
                    throw new A2aClientException("it answered HTTP " + r.statusCode() + (why == null ? "" : ": " + why));
                }
                String type = r.headers().firstValue("Content-Type").orElse("");
                if (!type.startsWith("text/event-stream")) {
                    // an error (or a non-streaming answer) comes as one JSON-RPC response
                    dispatch(Json.mapper().readTree(stream), handOn);
                    return;
                }
                BufferedReader lines = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
                StringBuilder data = new StringBuilder();
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.isEmpty()) {
                        if (!data.isEmpty()) dispatch(Json.mapper().readTree(data.toString()), handOn);
                        data.setLength(0);
                    } else if (line.startsWith("data:")) {
                        if (!data.isEmpty()) data.append('\n');
                        data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
                    }
                }
                if (!data.isEmpty()) dispatch(Json.mapper().readTree(data.toString()), handOn);
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

    /** One event: a JSON-RPC response (its result), or over HTTP+JSON the bare StreamResponse or an error. */
    private static void dispatch(JsonNode response, Consumer<JsonNode> events) throws A2aClientException {
        if (response == null) return;
        if (response.has("error")) {
            JsonNode err = response.path("error");
            throw new A2aClientException("it answered with error " + err.path("code").asInt() + ": " + err.path("message").asText());
        }
        events.accept(response.has("result") || response.has("jsonrpc") ? response.path("result") : response);
    }

    /** The message of an HTTP+JSON error body ({@code {"error": {"message": …}}}), or null. */
    private static String errorMessage(InputStream body) {
        try {
            JsonNode e = Json.mapper().readTree(body.readNBytes(64 * 1024)).path("error");
            return e.path("message").isTextual() ? e.path("message").asText() : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Cancels the task ({@code tasks/cancel}, {@code CancelTask} or {@code POST /tasks/{id}:cancel}), best effort. */
    void cancel(Endpoint endpoint, String taskId) {
        ObjectNode params = Json.object().put("id", taskId);
        if (refusal(endpoint.uri()).isPresent()) return;
        HttpRequest.Builder rq = endpoint.binding().equals(HTTP_JSON)
                ? rest(endpoint, "/tasks/" + java.net.URLEncoder.encode(taskId, StandardCharsets.UTF_8).replace("+", "%20") + ":cancel", Json.object())
                : request(endpoint, endpoint.v1() ? "CancelTask" : "tasks/cancel", params);
        try {
            http.send(rq.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            // the remote task ends on its own or stays; nothing more to do
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A JSON-RPC request; over 1.0 with {@code A2A-Version: 1.0}. */
    private HttpRequest.Builder request(Endpoint endpoint, String method, ObjectNode params) {
        ObjectNode body = Json.object().put("jsonrpc", "2.0").put("id", UUID.randomUUID().toString()).put("method", method);
        body.set("params", params);
        HttpRequest.Builder rq = HttpRequest.newBuilder(endpoint.uri()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        if (endpoint.v1()) rq.header("A2A-Version", V1);
        authorize(rq, endpoint.uri());
        return rq;
    }

    /** An HTTP+JSON {@code POST} of {@code body} to {@code path} under the interface's URL (1.0 only). */
    private HttpRequest.Builder rest(Endpoint endpoint, String path, ObjectNode body) {
        String u = endpoint.uri().toString();
        URI target = URI.create((u.endsWith("/") ? u.substring(0, u.length() - 1) : u) + path);
        HttpRequest.Builder rq = HttpRequest.newBuilder(target).header("Content-Type", "application/a2a+json")
                .header("A2A-Version", V1).POST(HttpRequest.BodyPublishers.ofString(body.toString()));
        authorize(rq, target);
        return rq;
    }

    // ---------------------------------------------------------------- 1.0 shapes (what this client sends and reads)

    /** A user message of 0.3's shape (text parts) as 1.0's: no {@code kind}, {@code ROLE_USER}. */
    static ObjectNode messageV1(JsonNode m) {
        ObjectNode r = Json.object().put("messageId", m.path("messageId").asText()).put("role", "ROLE_USER");
        if (m.path("contextId").isTextual()) r.put("contextId", m.path("contextId").asText());
        if (m.path("taskId").isTextual()) r.put("taskId", m.path("taskId").asText());
        var parts = r.putArray("parts");
        for (JsonNode p : m.path("parts")) parts.addObject().put("text", p.path("text").asText());
        return r;
    }

    /**
     * A 1.0 {@code StreamResponse} ({@code task}, {@code message}, {@code statusUpdate} or {@code artifactUpdate}) as
     * 0.3's event of that kind, states by 0.3's names ({@code TASK_STATE_INPUT_REQUIRED} is {@code input-required});
     * parts keep their {@code text}, which is all that is read of them.
     */
    static JsonNode eventV03(JsonNode r) {
        String[][] kinds = {{"task", "task"}, {"message", "message"}, {"statusUpdate", "status-update"}, {"artifactUpdate", "artifact-update"}};
        for (String[] k : kinds) {
            if (!r.path(k[0]).isObject()) continue;
            ObjectNode e = ((ObjectNode) r.get(k[0]).deepCopy()).put("kind", k[1]);
            if (e.path("status").path("state").isTextual()) ((ObjectNode) e.get("status")).put("state", stateV03(e.path("status").path("state").asText()));
            return e;
        }
        return Json.object();
    }

    private static String stateV03(String v1) {
        return v1.startsWith("TASK_STATE_") ? v1.substring(11).toLowerCase(java.util.Locale.ROOT).replace('_', '-') : v1;
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
