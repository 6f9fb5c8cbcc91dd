package cn.agentao.agent.door.agora;

import cn.agentao.agent.net.Network;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One agent's connection to an Agora server over the JDK's WebSocket client: connects with
 * {@code agent_id} and {@code token}, registers and waits for {@code agent.registered}, joins the spaces, sends a
 * heartbeat every interval, and hands every other message to the {@link Listener}. A dropped connection is
 * reopened with a doubling back-off (registered and joined again); an {@code UNAUTHORIZED} answer ends it.
 */
public final class AgoraLink implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AgoraLink.class);

    /** What the link reports. Called on the link's threads; must not block for long. */
    public interface Listener {
        /** A space message (event, delta, done, cancel) or anything else the handshake does not consume. */
        void message(ObjectNode message);

        /** Registered, and the spaces joined (again after a reconnect). */
        default void connected(String connectionId) {}

        /** Something the person running the agent should know, in plain words. */
        void problem(String words);

        /** The link gave up (e.g. the token was refused): nothing more will come. */
        void fatal(String words);
    }

    public record Settings(URI url, String agentId, String token, List<String> spaces, Duration heartbeat,
                           String version, Duration firstBackoff, Duration maxBackoff) {
        public Settings {
            spaces = List.copyOf(spaces);
        }
    }

    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(15);

    private final Settings settings;
    private final Listener listener;
    private final AgoraMessages messages = new AgoraMessages();
    private final HttpClient http;
    private final Object sendLock = new Object();
    private final Set<String> joined = ConcurrentHashMap.newKeySet();
    /** The spaces to be in: the settings' and those {@link #join}ed since; joined again after a reconnect. */
    private final Set<String> wanted = java.util.Collections.synchronizedSet(new java.util.LinkedHashSet<>());
    private volatile boolean closed;
    private volatile Connection current;
    private Thread runner;

    public AgoraLink(Settings settings, Listener listener) {
        this.settings = settings;
        this.listener = listener;
        // the proxy and CAs as for every request the agent makes (HTTP_PROXY/HTTPS_PROXY/NO_PROXY, SSL_CERT_FILE)
        this.http = Network.get().configure(HttpClient.newBuilder().connectTimeout(HANDSHAKE_TIMEOUT),
                "wss".equalsIgnoreCase(settings.url().getScheme())).build();
        this.wanted.addAll(settings.spaces());
    }

    private List<String> wantedNow() {
        synchronized (wanted) {
            return List.copyOf(wanted);
        }
    }

    /** Joins {@code space} now if connected, and after every reconnect. */
    public void join(String space) {
        if (!wanted.add(space)) return;
        Connection c = current;
        if (c != null) {
            ObjectNode join = messages.join(space);
            c.joinIds.put(join.path("id").asText(), space);
            c.send(join);
        }
    }

    /** Connects in the background and keeps connected until {@link #close()}. */
    public synchronized void start() {
        if (runner != null) throw new IllegalStateException("already started");
        runner = Thread.ofPlatform().daemon().name("agora-link").start(this::run);
    }

    public String agentId() { return settings.agentId(); }

    /** The spaces joined on the current connection. */
    public Set<String> joinedSpaces() { return Set.copyOf(joined); }

    /** Publishes {@code text} in {@code space}; false when not connected (the text is then lost, and said so). */
    public boolean publish(String space, String text, String replyTo, int depth) {
        return send(messages.publish(space, settings.agentId(), text, replyTo, depth));
    }

    /** Sends one message on the current connection; false when there is none or it failed. */
    boolean send(ObjectNode message) {
        Connection c = current;
        if (c == null) return false;
        return c.send(message);
    }

    /** The URL with {@code agent_id} and {@code token}; never logged (the token is a credential). */
    static URI connectUri(URI base, String agentId, String token) {
        String s = base.toString();
        StringBuilder b = new StringBuilder(s).append(s.contains("?") ? '&' : '?')
                .append("agent_id=").append(URLEncoder.encode(agentId, StandardCharsets.UTF_8));
        if (token != null && !token.isEmpty()) b.append("&token=").append(URLEncoder.encode(token, StandardCharsets.UTF_8));
        return URI.create(b.toString());
    }

    private void run() {
        long backoff = settings.firstBackoff().toMillis();
        boolean first = true;
        while (!closed) {
            String lost;
            try {
                Connection c = connect();
                backoff = settings.firstBackoff().toMillis();
                if (!first) log.info("agora: reconnected to {}", settings.url());
                first = false;
                lost = c.serve();
            } catch (Fatal e) {
                if (!closed) listener.fatal(e.getMessage());
                return;
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                lost = reason(e);
            } finally {
                current = null;
                joined.clear();
            }
            if (closed) return;
            listener.problem("Agora connection " + (first ? "failed" : "lost") + ": " + lost + "; trying again in "
                    + Duration.ofMillis(backoff).toMillis() + " ms");
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException e) {
                return;
            }
            backoff = Math.min(backoff * 2, settings.maxBackoff().toMillis());
        }
    }

    private static String reason(Throwable e) {
        Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        if (t instanceof java.net.http.WebSocketHandshakeException h) return "the server refused the WebSocket handshake (HTTP " + h.getResponse().statusCode() + ")";
        if (t instanceof java.net.ConnectException) return "cannot connect to " + "the server (" + (t.getMessage() == null ? "refused" : t.getMessage()) + ")";
        if (t instanceof TimeoutException) return "no answer in time";
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }

    /** The http(s) address of a ws(s) one: what proxy settings are chosen by. */
    static URI httpUri(URI ws) {
        String scheme = "wss".equalsIgnoreCase(ws.getScheme()) ? "https" : "http";
        return URI.create(scheme + ws.toString().substring(ws.getScheme().length()));
    }

    /** Opens the WebSocket, registers and joins; throws {@link Fatal} when the server refuses this agent for good. */
    private Connection connect() throws Exception {
        Connection c = new Connection();
        URI uri = connectUri(settings.url(), settings.agentId(), settings.token());
        WebSocket.Builder builder = http.newWebSocketBuilder().connectTimeout(HANDSHAKE_TIMEOUT);
        // the proxy's credentials for the CONNECT that opens the tunnel (the JDK never sends Proxy-* headers through it)
        Network.get().proxyAuthorization(httpUri(uri)).ifPresent(a -> builder.header("Proxy-Authorization", a));
        c.ws = builder.buildAsync(uri, c)
                .get(HANDSHAKE_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
        ObjectNode register = messages.register(settings.agentId(), settings.version(), List.of("text"));
        c.registerId = register.path("id").asText();
        c.send(register);
        JsonNode answer;
        try {
            answer = CompletableFuture.anyOf(c.registered, c.closed).get(HANDSHAKE_TIMEOUT.toSeconds(), TimeUnit.SECONDS) instanceof JsonNode j ? j : null;
        } catch (TimeoutException e) {
            c.abort();
            throw new IOException("no agent.registered within " + HANDSHAKE_TIMEOUT.toSeconds() + " s");
        }
        if (answer == null || !c.registered.isDone()) {
            throw new IOException("the server closed the connection before registering" + c.closeReason());
        }
        if (AgoraMessages.ERROR.equals(AgoraMessages.type(answer))) {
            String words = AgoraErrors.describe(answer, null);
            c.abort();
            if (AgoraErrors.fatal(AgoraMessages.text(answer, "code"))) throw new Fatal(words);
            throw new IOException(words);
        }
        String connectionId = answer.path("agent").path("connection_id").asText("");
        log.info("agora: registered as {} (connection {})", settings.agentId(), connectionId);
        current = c;
        for (String space : wantedNow()) {
            ObjectNode join = messages.join(space);
            c.joinIds.put(join.path("id").asText(), space);
            c.send(join);
        }
        listener.connected(connectionId);
        return c;
    }

    /** Leaves the spaces and closes the connection (waits a little for the server to see it). */
    @Override
    public void close() {
        closed = true;
        Connection c = current;
        if (c != null) {
            for (String space : wantedNow()) c.send(messages.leave(space));
            try {
                c.ws.sendClose(WebSocket.NORMAL_CLOSURE, "agent stopping").get(2, TimeUnit.SECONDS);
                c.closed.get(2, TimeUnit.SECONDS);
            } catch (Exception e) {
                log.debug("agora: close: {}", e.toString());
            }
            c.abort();
        }
        Thread r = runner;
        if (r != null) r.interrupt();
    }

    private static final class Fatal extends Exception {
        Fatal(String message) { super(message); }
    }

    /** One WebSocket: its handshake state and its incoming text. */
    private final class Connection implements WebSocket.Listener {
        volatile WebSocket ws;
        volatile String registerId;
        final Map<String, String> joinIds = new ConcurrentHashMap<>();
        final CompletableFuture<JsonNode> registered = new CompletableFuture<>();
        final CompletableFuture<Object> closed = new CompletableFuture<>();
        private final StringBuilder partial = new StringBuilder();
        private volatile String closeReason;
        /** When the server last said anything, and whether it answers heartbeats (the spec's are both ways). */
        private volatile long lastHeard = System.nanoTime();
        private volatile boolean serverBeats;

        boolean send(ObjectNode message) {
            synchronized (sendLock) {
                try {
                    ws.sendText(Json.mapper().writeValueAsString(message), true).get(HANDSHAKE_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    return true;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                } catch (Exception e) {
                    log.debug("agora: send failed: {}", e.toString());
                    abort();
                    return false;
                }
            }
        }

        /** Heartbeats until the connection ends; returns why it ended. */
        String serve() throws InterruptedException {
            long every = Math.max(1, settings.heartbeat().toMillis());
            while (!AgoraLink.this.closed) {
                try {
                    closed.get(every, TimeUnit.MILLISECONDS);
                    return "the server closed the connection" + closeReason();
                } catch (TimeoutException e) {
                    if (serverBeats && System.nanoTime() - lastHeard > TimeUnit.MILLISECONDS.toNanos(every) * 3) {
                        abort();
                        return "the server sent nothing for " + (every * 3 / 1000.0) + " s";
                    }
                    if (!send(messages.heartbeat())) return "a heartbeat could not be sent";
                } catch (ExecutionException e) {
                    return reason(e);
                }
            }
            return "stopping";
        }

        String closeReason() {
            return closeReason == null || closeReason.isBlank() ? "" : " (" + closeReason + ")";
        }

        void abort() {
            WebSocket w = ws;
            if (w != null) w.abort();
            closed.complete("aborted");
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            lastHeard = System.nanoTime();
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                handle(text);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closeReason = statusCode + (reason == null || reason.isBlank() ? "" : " " + reason);
            closed.complete("closed");
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closeReason = reason(error);
            closed.complete("error");
        }

        private void handle(String text) {
            ObjectNode m;
            try {
                JsonNode n = Json.mapper().readTree(text);
                if (n == null || !n.isObject()) throw new IOException("not an object");
                m = (ObjectNode) n;
            } catch (IOException e) {
                log.warn("agora: ignored a message that is not a JSON object ({} chars)", text.length());
                return;
            }
            String type = AgoraMessages.type(m);
            String requestId = AgoraMessages.text(m, "request_id");
            switch (type) {
                case AgoraMessages.REGISTERED -> registered.complete(m);
                case AgoraMessages.JOINED -> {
                    String space = AgoraMessages.text(m, "space");
                    if (space != null) joined.add(space);
                    log.info("agora: joined space {} ({} members)", space, m.path("members").size());
                }
                case AgoraMessages.MEMBERS -> log.info("agora: space {} members now {}", AgoraMessages.text(m, "space"), m.path("members"));
                case AgoraMessages.HEARTBEAT -> serverBeats = true;
                case AgoraMessages.ERROR -> {
                    if (!registered.isDone() && (requestId == null || requestId.equals(registerId))) {
                        registered.complete(m);
                    } else {
                        String space = requestId == null ? null : joinIds.get(requestId);
                        listener.problem("Agora: " + AgoraErrors.describe(m, space));
                        if (!AgoraErrors.fatal(AgoraMessages.text(m, "code"))) listener.message(m);
                    }
                }
                default -> listener.message(m);
            }
        }
    }
}
