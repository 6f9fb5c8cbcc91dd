package cn.agentao.agent.testing;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;

/**
 * The one fake in this project's tests: a real HTTP server on 127.0.0.1 that answers like a language model.
 * It speaks OpenAI Chat Completions ({@code POST …/chat/completions}) and Anthropic Messages
 * ({@code POST …/messages}), streamed (SSE) or not, and OpenAI's Responses API ({@code POST …/responses}, not
 * streamed: what a provider-side web search uses), and plays {@link Script}s.
 *
 * <p>Which script answers a request: the first {@linkplain #when rule} whose matcher accepts it and still has a
 * reply; else the head of the {@linkplain #enqueue queue}; else the {@linkplain #whenEmpty empty-queue answer},
 * which is a one-chunk {@code "ok"} reply unless changed ({@link #whenEmptyFail()} makes it an HTTP 500).
 * Every request is recorded ({@link #requests()}).
 *
 * <pre>{@code
 * try (FakeModelServer server = FakeModelServer.start()) {
 *     server.enqueue(Script.reply().text("Hel", "lo"));
 *     server.when(FakeModelServer.lastUserMessageContains("weather")).reply(Script.textReply("sunny"));
 *     // point the agent at server.baseUrl(), e.g. with server.openAiEnvironment()
 * }
 * }</pre>
 *
 * <p>Other processes (Node interop tests) can script it over HTTP: {@code POST /_fake/configure} with the JSON
 * described at {@link #configure(JsonNode)}, {@code GET /_fake/requests}, {@code POST /_fake/reset}. Run
 * {@link #main} to start one standalone.
 */
public final class FakeModelServer implements AutoCloseable {
    static {
        // Without TCP_NODELAY every small write waits for the client's delayed ACK: ~40 ms per answer.
        // Read once, when the JDK's server classes load, so it must be set before the first server starts.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    public static final String API_KEY = "test-key";
    public static final String MODEL = "fake-model";

    private final HttpServer server;
    private final boolean tls;
    private final ExecutorService executor;
    private final Deque<Script> queue = new ArrayDeque<>();
    private final List<Rule> rules = new ArrayList<>();
    private final List<RecordedRequest> requests = new ArrayList<>();
    private Script whenEmpty = Script.textReply("ok");
    private int remainingErrors = -1; // answers left for the error script at the head of the queue

    private FakeModelServer(InetAddress address, int port, SSLContext tls) throws IOException {
        InetSocketAddress bind = new InetSocketAddress(address, port);
        if (tls == null) {
            server = HttpServer.create(bind, 64);
        } else {
            HttpsServer https = HttpsServer.create(bind, 64);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            server = https;
        }
        this.tls = tls != null;
        executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Starts a server on a free port. */
    public static FakeModelServer start() {
        return start(0);
    }

    public static FakeModelServer start(int port) {
        return start(InetAddress.getLoopbackAddress(), port, null);
    }

    /** Starts a server on {@code address}, speaking TLS with {@code tls} when it is not null. */
    public static FakeModelServer start(InetAddress address, int port, SSLContext tls) {
        try {
            return new FakeModelServer(address, port, tls);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the fake model server", e);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:PORT/v1}, the base URL for both APIs. */
    public String baseUrl() {
        return baseUrl("127.0.0.1");
    }

    /** The base URL with {@code host} for the server's address ({@code https} when it speaks TLS). */
    public String baseUrl(String host) {
        return (tls ? "https" : "http") + "://" + host + ":" + port() + "/v1";
    }

    /** Variables that point the agent's default OpenAI-compatible provider here. */
    public Map<String, String> openAiEnvironment() {
        return Map.of("LLM_PROVIDER", "OPENAI", "OPENAI_BASE_URL", baseUrl(), "OPENAI_API_KEY", API_KEY,
                "OPENAI_MODEL", MODEL);
    }

    /** Variables that point the agent's Anthropic provider here. */
    public Map<String, String> anthropicEnvironment() {
        return Map.of("LLM_PROVIDER", "ANTHROPIC", "ANTHROPIC_BASE_URL", baseUrl(), "ANTHROPIC_API_KEY", API_KEY,
                "ANTHROPIC_MODEL", MODEL);
    }

    // ---- scripting ----

    /** Appends scripts to the queue; each answers one request (an error script {@link Script#times} requests). */
    public synchronized FakeModelServer enqueue(Script... scripts) {
        queue.addAll(List.of(scripts));
        return this;
    }

    /** Starts a rule; finish it with {@link Rule#reply} or {@link Rule#replyAlways}. */
    public Rule when(Predicate<RecordedRequest> matcher) {
        return new Rule(matcher);
    }

    /** Matches requests whose last user message (text) contains {@code text}. */
    public static Predicate<RecordedRequest> lastUserMessageContains(String text) {
        return request -> request.lastUserMessage().contains(text);
    }

    /** The answer when no rule matches and the queue is empty. */
    public synchronized FakeModelServer whenEmpty(Script script) {
        whenEmpty = script;
        return this;
    }

    /** Answer HTTP 500 when no rule matches and the queue is empty, so a missing script fails loudly. */
    public FakeModelServer whenEmptyFail() {
        return whenEmpty(Script.httpError(500, "{\"error\":{\"message\":\"fake model server: no scripted response left\"}}"));
    }

    /** Forgets scripts, rules and recorded requests; the empty-queue answer goes back to {@code "ok"}. */
    public synchronized void reset() {
        queue.clear();
        rules.clear();
        requests.clear();
        whenEmpty = Script.textReply("ok");
        remainingErrors = -1;
    }

    /** Scripts chosen by a matcher; see {@link FakeModelServer#when}. */
    public final class Rule {
        private final Predicate<RecordedRequest> matcher;
        private final Deque<Script> replies = new ArrayDeque<>();
        private boolean always;

        private Rule(Predicate<RecordedRequest> matcher) {
            this.matcher = matcher;
        }

        /** Matching requests get these scripts in order; once used up, the rule stops matching. */
        public FakeModelServer reply(Script... scripts) {
            synchronized (FakeModelServer.this) {
                replies.addAll(List.of(scripts));
                rules.add(this);
            }
            return FakeModelServer.this;
        }

        /** Every matching request gets {@code script}. */
        public FakeModelServer replyAlways(Script script) {
            synchronized (FakeModelServer.this) {
                replies.add(script);
                always = true;
                rules.add(this);
            }
            return FakeModelServer.this;
        }
    }

    private synchronized Script nextScript(RecordedRequest request) {
        for (Rule rule : rules) {
            if (!rule.replies.isEmpty() && rule.matcher.test(request)) {
                return rule.always ? rule.replies.peek() : rule.replies.poll();
            }
        }
        Script head = queue.peek();
        if (head == null) {
            return whenEmpty;
        }
        if (head.error() != null && head.times() > 1) {
            if (remainingErrors < 0) {
                remainingErrors = head.times();
            }
            if (--remainingErrors > 0) {
                return head;
            }
            remainingErrors = -1;
        }
        return queue.poll();
    }

    // ---- what was received ----

    public synchronized List<RecordedRequest> requests() {
        return List.copyOf(requests);
    }

    public synchronized RecordedRequest lastRequest() {
        return requests.isEmpty() ? null : requests.get(requests.size() - 1);
    }

    /** Waits until at least {@code count} requests arrived; returns them (fewer if the timeout passed). */
    public synchronized List<RecordedRequest> awaitRequests(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (requests.size() < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return List.copyOf(requests);
    }

    private synchronized void record(RecordedRequest request) {
        requests.add(request);
        notifyAll();
    }

    // ---- HTTP ----

    private void handle(HttpExchange exchange) throws IOException {
        boolean dropped = false;
        try {
            handleRequest(exchange);
        } catch (ReplyPlayer.DropConnection drop) {
            // Leave the exchange unfinished: the server then closes the socket without ending the response.
            dropped = true;
            throw drop;
        } finally {
            if (!dropped) {
                exchange.close();
            }
        }
    }

    private void handleRequest(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        byte[] rawBody = exchange.getRequestBody().readAllBytes();
        if (path.startsWith("/_fake/")) {
            handleControl(exchange, path, new String(rawBody, StandardCharsets.UTF_8));
            return;
        }
        if ("GET".equals(exchange.getRequestMethod()) && (path.endsWith("/models") || path.endsWith("/api/tags"))) {
            listModels(exchange, path);
            return;
        }
        RecordedRequest.Api api = path.endsWith("/chat/completions") ? RecordedRequest.Api.OPENAI
                : path.endsWith("/messages") ? RecordedRequest.Api.ANTHROPIC
                : path.endsWith("/responses") ? RecordedRequest.Api.OPENAI_RESPONSES : null;
        if (api == null || !"POST".equals(exchange.getRequestMethod())) {
            respond(exchange, 404, "{\"error\":{\"message\":\"fake model server: no such endpoint " + path + "\"}}");
            return;
        }
        String body = new String(rawBody, StandardCharsets.UTF_8);
        JsonNode json;
        try {
            json = Json.mapper().readTree(body);
        } catch (IOException e) {
            respond(exchange, 400, "{\"error\":{\"message\":\"fake model server: body is not JSON\"}}");
            return;
        }
        RecordedRequest request = new RecordedRequest(api, exchange.getRequestMethod(), path,
                lowerCaseHeaders(exchange), body, json);
        record(request);
        answer(exchange, request, nextScript(request));
    }

    private volatile String acceptedKey;

    /** Makes the model listing ({@code GET …/models}, what {@code agent login} checks a key with) accept only {@code key}. */
    public FakeModelServer acceptOnlyKey(String key) {
        acceptedKey = key;
        return this;
    }

    private void listModels(HttpExchange exchange, String path) throws IOException {
        RecordedRequest request = new RecordedRequest(null, "GET", path, lowerCaseHeaders(exchange), "", null);
        record(request);
        String bearer = request.header("authorization");
        String key = bearer != null && bearer.startsWith("Bearer ") ? bearer.substring(7) : request.header("x-api-key");
        if (acceptedKey != null && !acceptedKey.equals(key)) {
            respond(exchange, 401, "{\"error\":{\"message\":\"Incorrect API key provided\"}}");
            return;
        }
        respond(exchange, 200, "{\"object\":\"list\",\"data\":[{\"id\":\"fake-model\",\"object\":\"model\"}]}");
    }

    private void answer(HttpExchange exchange, RecordedRequest request, Script script) throws IOException {
        Wire wire = Wire.of(request.api());
        if (script.error() != null) {
            script.error().headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
            respond(exchange, script.error().status(),
                    script.error().body() != null ? script.error().body() : wire.errorBody(script.error().status()));
            return;
        }
        int inputTokens = Math.max(1, request.rawBody().length() / 4);
        try {
            if (request.streaming()) {
                exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
                exchange.getResponseHeaders().add("Cache-Control", "no-cache");
                exchange.sendResponseHeaders(200, 0);
                SseOutput out = SseOutput.events(exchange.getResponseBody());
                ReplyPlayer.stream(script, wire.streamer(out, request), out, inputTokens);
                out.close();
            } else {
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, 0);
                SseOutput out = SseOutput.pendingJson(exchange.getResponseBody());
                ReplyPlayer.waitBeforeCompleteAnswer(script, out);
                out.write(wire.complete(script, request, inputTokens));
                out.close();
            }
        } catch (IOException e) {
            request.markClientGone();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the server is closing
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static Map<String, List<String>> lowerCaseHeaders(HttpExchange exchange) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), List.copyOf(values)));
        return headers;
    }

    // ---- scripting from JSON: main and the control endpoints ----

    /**
     * Adds scripting from JSON: {@code {"default": <script> | "fail", "queue": [<script>...], "rules":
     * [{"lastUserMessageContains": "x", "replies": [<script>...], "always": false}]}}; see
     * {@link Script#fromJson} for {@code <script>}.
     */
    public FakeModelServer configure(JsonNode config) {
        JsonNode fallback = config.path("default");
        if (fallback.isTextual() && fallback.asText().equals("fail")) {
            whenEmptyFail();
        } else if (!fallback.isMissingNode() && !fallback.isNull()) {
            whenEmpty(Script.fromJson(fallback));
        }
        config.path("queue").forEach(script -> enqueue(Script.fromJson(script)));
        for (JsonNode rule : config.path("rules")) {
            List<Script> replies = new ArrayList<>();
            rule.path("replies").forEach(script -> replies.add(Script.fromJson(script)));
            Rule r = when(lastUserMessageContains(rule.path("lastUserMessageContains").asText()));
            if (rule.path("always").asBoolean(false) && replies.size() == 1) {
                r.replyAlways(replies.get(0));
            } else {
                r.reply(replies.toArray(Script[]::new));
            }
        }
        return this;
    }

    private void handleControl(HttpExchange exchange, String path, String body) throws IOException {
        switch (path) {
            case "/_fake/configure" -> {
                try {
                    configure(Json.mapper().readTree(body));
                } catch (IOException | RuntimeException e) {
                    respond(exchange, 400, Json.object().put("error", String.valueOf(e.getMessage())).toString());
                    return;
                }
                respond(exchange, 200, "{}");
            }
            case "/_fake/reset" -> {
                reset();
                respond(exchange, 200, "{}");
            }
            case "/_fake/requests" -> {
                ArrayNode list = Json.mapper().createArrayNode();
                for (RecordedRequest request : requests()) {
                    ObjectNode item = list.addObject().put("method", request.method()).put("path", request.path());
                    item.set("headers", Json.mapper().valueToTree(request.headers()));
                    item.set("body", request.body());
                    item.put("clientDisconnected", request.clientDisconnected());
                }
                respond(exchange, 200, list.toString());
            }
            default -> respond(exchange, 404, "{\"error\":\"unknown control endpoint\"}");
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    /**
     * Starts a standalone server: {@code [--port N] [--script file.json]} (see {@link #configure} for the file).
     * Prints {@code FakeModelServer listening on http://127.0.0.1:PORT} to stderr and serves until killed.
     */
    public static void main(String[] args) throws IOException, InterruptedException {
        int port = 0;
        Path scriptFile = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--script" -> scriptFile = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("usage: FakeModelServer [--port N] [--script file.json]");
            }
        }
        FakeModelServer server = start(port);
        if (scriptFile != null) {
            server.configure(Json.mapper().readTree(Files.readString(scriptFile)));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        System.err.println("FakeModelServer listening on http://127.0.0.1:" + server.port());
        System.err.flush();
        Thread.currentThread().join();
    }
}
