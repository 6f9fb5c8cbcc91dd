package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.door.HttpDoorGuard;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.core.tool.Tool;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The A2A front door: an HTTP server (the JDK's, one virtual thread per exchange) serving the agent card, the
 * JSON-RPC endpoint at {@code /} (0.3, and 1.0 with {@code A2A-Version: 1.0}) and 1.0's HTTP+JSON routes beside it.
 * Every request first passes {@link HttpDoorGuard} (Host, Origin, JSON bodies). Without a token it binds only to
 * loopback and is the local user's; with one, every request but the card needs {@code Authorization: Bearer <token>}.
 * A task is served only to the credential that started it (see {@code A2aService#task}).
 */
public final class A2aServer implements AutoCloseable {
    public static final String CARD_PATH = "/.well-known/agent-card.json";
    public static final String OLD_CARD_PATH = "/.well-known/agent.json";

    /** What {@code agent a2a serve} was asked for; {@code idleClose} zero keeps contexts open while the server runs. */
    public record Options(String host, int port, Path cwd, String token, Mode mode, String version, Duration idleClose,
                          List<String> allowedHosts, List<String> allowedOrigins) {}

    /** The caller of a tokenless server: whoever passes the guard on loopback, i.e. a local program of the user's. */
    static final String LOCAL_CALLER = "local";

    private final HttpServer http;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final A2aService service;
    private final byte[] token;
    /** The caller a request with the token is (a fingerprint of the token, never the token itself). */
    private final String tokenCaller;
    private final String baseUrl;
    private final byte[] card;
    private final String cardEtag;
    /** When the card was made (it changes only with a restart), for {@code Last-Modified}. */
    private final String cardModified = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME
            .format(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).withNano(0));
    private volatile boolean stopped;
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(A2aServer.class);

    private A2aServer(HttpServer http, A2aService service, byte[] token, String baseUrl, byte[] card) {
        this.http = http;
        this.service = service;
        this.token = token;
        this.tokenCaller = token == null ? null : callerOf(token);
        this.baseUrl = baseUrl;
        this.card = card;
        this.cardEtag = "\"" + fingerprint(card) + "\"";
    }

    /** Whether the host name or address is loopback only (an unresolvable name is not). */
    public static boolean isLoopback(String host) {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) if (!a.isLoopbackAddress()) return false;
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Binds and starts serving; throws IllegalArgumentException for a refused configuration. */
    public static A2aServer start(Options o, SessionService sessions, java.nio.file.Path configDir, NetworkGuard networkGuard, List<Tool> tools) throws IOException {
        if (o.token() == null && !isLoopback(o.host())) {
            throw new IllegalArgumentException("refusing to serve on " + o.host() + " without a token: anyone who can reach it "
                    + "could run commands here. Bind to 127.0.0.1, or require a token with --token-env VAR");
        }
        // TCP_NODELAY on accepted connections: without it a stream's small SSE writes wait for the client's delayed
        // ACK (about 40 ms on Linux) behind Nagle's algorithm. Read once, when the JDK's server first loads.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer http = HttpServer.create(new InetSocketAddress(o.host(), o.port()), 128);
        HttpDoorGuard guard;
        try {
            guard = new HttpDoorGuard(http.getAddress(), o.allowedHosts(), o.allowedOrigins());
        } catch (IllegalArgumentException e) {
            http.stop(0);
            throw e;
        }
        String host = http.getAddress().getAddress().getHostAddress();
        if (host.contains(":")) host = "[" + host + "]";
        String baseUrl = "http://" + host + ":" + http.getAddress().getPort();
        ObjectNode cardJson = AgentCard.build(baseUrl + "/", o.version(), o.token() != null, tools,
                o.cwd(), configDir);
        byte[] card = cardJson.toString().getBytes(StandardCharsets.UTF_8);
        A2aContexts contexts = new A2aContexts(sessions, o.cwd(), o.mode());
        TaskStore tasks = TaskRepository.shared(sessions).<TaskStore>map(r -> new SharedTaskStore(r, sessions)).orElseGet(MemoryTaskStore::new);
        A2aService service = new A2aService(sessions, contexts, tasks, new PushNotifier(networkGuard), o.cwd());
        A2aServer server = new A2aServer(http, service, o.token() == null ? null : o.token().getBytes(StandardCharsets.UTF_8), baseUrl, card);
        http.setExecutor(server.executor);
        // the extended card is for callers with the token: the same card, as there is nothing more to tell them
        A2aV1Api v1 = new A2aV1Api(service, o.token() == null ? null : cardJson);
        JsonRpcHandler rpc = new JsonRpcHandler(service, v1);
        A2aRestHandler rest = new A2aRestHandler(v1);
        http.createContext("/", exchange -> server.handle(exchange, rpc, rest)).getFilters().add(guard);
        http.start();
        if (!o.idleClose().isZero()) server.closeIdleContexts(o.idleClose());
        return server;
    }

    public String baseUrl() { return baseUrl; }

    /** Every so often, closes the sessions of contexts idle for {@code idle} (see {@link A2aContexts#closeIdle}). */
    private void closeIdleContexts(Duration idle) {
        long pauseMs = Math.max(200, Math.min(30_000, idle.toMillis() / 2));
        Thread.ofVirtual().name("a2a-idle-contexts").start(() -> {
            while (!stopped) {
                try {
                    Thread.sleep(pauseMs);
                } catch (InterruptedException e) {
                    return;
                }
                if (stopped) return;
                int n = service.closeIdle(idle);
                if (n > 0) log.debug("closed {} idle context(s)", n);
            }
        });
    }

    private void handle(HttpExchange exchange, JsonRpcHandler rpc, A2aRestHandler rest) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            if (path.equals(CARD_PATH) || path.equals(OLD_CARD_PATH)) {
                if (!method.equals("GET") && !method.equals("HEAD")) {
                    HttpDoorGuard.plain(exchange, 405, "use GET");
                    return;
                }
                // the card changes only with a restart: caches may keep it a while and revalidate it by its ETag
                exchange.getResponseHeaders().set("Cache-Control", "public, max-age=300");
                exchange.getResponseHeaders().set("ETag", cardEtag);
                exchange.getResponseHeaders().set("Last-Modified", cardModified);
                if (matches(exchange.getRequestHeaders().getFirst("If-None-Match"), cardEtag)) {
                    exchange.sendResponseHeaders(304, -1);
                    return;
                }
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, method.equals("HEAD") ? -1 : card.length);
                if (!method.equals("HEAD")) exchange.getResponseBody().write(card);
                return;
            }
            String caller = caller(exchange);
            if (caller == null) {
                exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
                HttpDoorGuard.plain(exchange, 401, "missing or wrong bearer token");
                return;
            }
            if (A2aRestHandler.serves(path)) {
                rest.handle(exchange, caller, requestedVersion(exchange));
                return;
            }
            if (!path.equals("/")) {
                HttpDoorGuard.plain(exchange, 404, "not found: the A2A JSON-RPC endpoint is " + baseUrl + "/, the HTTP+JSON "
                        + "(REST) routes are under it (/message:send, /tasks, …)");
                return;
            }
            if (!method.equals("POST")) {
                HttpDoorGuard.plain(exchange, 405, "use POST with a JSON-RPC request");
                return;
            }
            rpc.handle(exchange, caller, requestedVersion(exchange));
        }
    }

    /** Whether an {@code If-None-Match} header names the ETag (or is {@code *}). */
    private static boolean matches(String ifNoneMatch, String etag) {
        if (ifNoneMatch == null) return false;
        for (String tag : ifNoneMatch.split(",")) {
            String t = tag.strip();
            if (t.startsWith("W/")) t = t.substring(2);
            if (t.equals("*") || t.equals(etag)) return true;
        }
        return false;
    }

    /**
     * The {@code A2A-Version} the request asks for: its header, else its query parameter; null (or empty) is none,
     * which A2A reads as 0.3.
     */
    static String requestedVersion(HttpExchange exchange) {
        String v = exchange.getRequestHeaders().getFirst("A2A-Version");
        if (v == null || v.isBlank()) {
            String query = exchange.getRequestURI().getRawQuery();
            if (query != null) {
                for (String pair : query.split("&")) {
                    int eq = pair.indexOf('=');
                    String name = java.net.URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                    if (name.equalsIgnoreCase("A2A-Version") && eq >= 0) {
                        v = java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                        break;
                    }
                }
            }
        }
        return v == null || v.isBlank() ? null : v.strip();
    }

    /**
     * Who the request comes from, or null when it is not authorized: the token's caller when it carries the token,
     * the local user when the server has no token (it is then on loopback, and the guard let only non-browser
     * requests through). A task remembers its caller; another caller cannot answer its questions.
     */
    private String caller(HttpExchange exchange) {
        if (token == null) return LOCAL_CALLER;
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) return null;
        return MessageDigest.isEqual(token, header.substring(7).strip().getBytes(StandardCharsets.UTF_8)) ? tokenCaller : null;
    }

    /** The caller holding {@code token}. */
    static String callerOf(byte[] token) { return "token:" + fingerprint(token); }

    private static String fingerprint(byte[] token) {
        try {
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token), 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Cancels running tasks (their state recorded in their sessions) within {@code grace}, then stops serving. */
    public void shutdown(Duration grace) {
        stopped = true;
        service.shutdown(grace);
        http.stop(0);
        executor.shutdownNow();
    }

    @Override
    public void close() { shutdown(Duration.ofSeconds(2)); }
}
