package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.net.Network;
import cn.agentao.agent.util.CancelledException;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.socket.client.IO;
import io.socket.client.Socket;
import io.socket.engineio.client.transports.Polling;
import io.socket.engineio.client.transports.WebSocket;
import okhttp3.OkHttpClient;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The agent's Socket.IO connection to an A2C-SMCP server: path and namespace {@code /smcp}, query
 * {@code a2c_version}, {@code auth {token}} (and {@code role: "agent"} up to 0.2; from 0.3 the role is declared in
 * {@code server:join_office} only); requests with acknowledgements, notifications to a {@link Listener}. The first
 * handshake is HTTP long-polling (0.3 requires it, so a refusal is an HTTP answer), upgraded to WebSocket. One
 * client is one connection: the library's own reconnection ({@code io.socket:socket.io-client}, Socket.IO v5 /
 * Engine.IO v4) is off, so nothing reaches the server while a refused handshake is read with a plain HTTP request
 * ({@link SmcpHandshakeProbe}), and every new connection can offer another version. When the connection ends or
 * cannot be made, the client closes and tells the listener, whose owner opens the next one.
 */
final class SmcpClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SmcpClient.class);
    static final String NAMESPACE = "/smcp";
    static final List<String> NOTIFICATIONS = List.of("notify:enter_office", "notify:leave_office", "notify:update_config",
            "notify:update_tool_list", "notify:update_desktop", "notify:update_skills", "notify:tool_call_cancel");

    /** What happens to the connection; called on the library's event thread or a probe thread: return quickly. */
    interface Listener {
        /** Connected (first time or again): join the office now. */
        void connected();

        void notification(String event, JsonNode data);

        /** The connection is gone (or could not be made) and this client is closed; worth another client unless {@code permanent}. */
        void disconnected(String reason, boolean permanent);

        /** The server refused the handshake (read over plain HTTP); this client is closed and will not try again. */
        void refused(SmcpHandshakeProbe.Refusal refusal);
    }

    private final SmcpConfig config;
    private final String version;
    private final Socket socket;
    private final OkHttpClient http;
    private final Listener listener;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean probing = new AtomicBoolean();

    private SmcpClient(SmcpConfig config, String version, Listener listener) {
        this.config = config;
        this.version = version;
        this.listener = listener;
        Map<String, String> auth = new HashMap<>();
        if (!SmcpVersions.isV03(version)) auth.put("role", "agent");
        if (config.token() != null) auth.put("token", config.token());
        IO.Options options = IO.Options.builder()
                .setPath(NAMESPACE)
                .setQuery("a2c_version=" + URLEncoder.encode(version, StandardCharsets.UTF_8))
                .setAuth(auth)
                .setForceNew(true)
                .setReconnection(false) // the owner reconnects, with a fresh client (and version), after the version is settled
                .setTimeout(10_000)
                .setTransports(new String[]{Polling.NAME, WebSocket.NAME}) // polling first (0.3: a refusal must be an HTTP answer), then upgraded
                .build();
        this.http = http(config.url());
        options.callFactory = http;
        options.webSocketFactory = http;
        this.socket = IO.socket(URI.create(config.url() + NAMESPACE), options);
        socket.on(Socket.EVENT_CONNECT, args -> listener.connected());
        socket.on(Socket.EVENT_DISCONNECT, args -> disconnected(args.length > 0 ? String.valueOf(args[0]) : "disconnected"));
        socket.on(Socket.EVENT_CONNECT_ERROR, args -> connectError(args.length > 0 ? args[0] : null));
        for (String event : NOTIFICATIONS) {
            socket.on(event, args -> listener.notification(event, args.length > 0 ? toJson(args[0]) : NullNode.getInstance()));
        }
    }

    /**
     * The library's HTTP client (OkHttp, which Socket.IO's Java client is built on), set up as every other outgoing
     * connection is ({@link Network}): the proxy from {@code HTTPS_PROXY}/{@code HTTP_PROXY}/{@code NO_PROXY} with its
     * credentials, and the extra certificate authorities. Without it the library connects directly, whatever the proxy.
     */
    private static OkHttpClient http(URI office) {
        Network net = Network.get();
        OkHttpClient.Builder b = new OkHttpClient.Builder()
                .readTimeout(1, TimeUnit.MINUTES) // the library's own default (Engine.IO pings every 25 s)
                .proxySelector(net.proxySelector())
                .proxyAuthenticator((route, response) -> response.request().header("Proxy-Authorization") != null
                        ? null // the proxy refused these credentials: give up rather than loop
                        : net.proxyAuthorization(office).map(a -> response.request().newBuilder().header("Proxy-Authorization", a).build())
                        .orElse(null));
        if ("https".equalsIgnoreCase(office.getScheme())) b.sslSocketFactory(net.sslContext().getSocketFactory(), net.trustManager());
        return b.build();
    }

    /** Starts connecting with protocol {@code version} (in the background); the listener hears when it is connected. */
    static SmcpClient open(SmcpConfig config, String version, Listener listener) {
        SmcpClient client = new SmcpClient(config, version, listener);
        client.socket.connect();
        return client;
    }

    boolean connected() {
        return socket.connected();
    }

    /** Emits {@code event} with {@code payload}; the future gets the acknowledgement's values (it fails when not connected). */
    CompletableFuture<List<JsonNode>> send(String event, JsonNode payload) {
        CompletableFuture<List<JsonNode>> answer = new CompletableFuture<>();
        if (!socket.connected()) {
            answer.completeExceptionally(new SmcpException("not connected to the office server at " + config.url()));
            return answer;
        }
        socket.emit(event, new Object[]{toLibrary(payload)}, args -> {
            List<JsonNode> values = new ArrayList<>(args.length);
            for (Object a : args) values.add(toJson(a));
            answer.complete(values);
        });
        return answer;
    }

    /** {@link #send} and wait at most {@code timeout}. */
    List<JsonNode> request(String event, JsonNode payload, Duration timeout, Cancellation cancel)
            throws SmcpException, TimeoutException, CancelledException {
        return await(send(event, payload), timeout, cancel);
    }

    /** Waits for an answer; {@link TimeoutException} after {@code timeout}, {@link CancelledException} when {@code cancel} fires. */
    static List<JsonNode> await(CompletableFuture<List<JsonNode>> answer, Duration timeout, Cancellation cancel)
            throws SmcpException, TimeoutException, CancelledException {
        try (Cancellation.Registration ignored = cancel.onCancel(() -> answer.cancel(false))) {
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.CancellationException e) {
            throw new CancelledException();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancelledException();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof SmcpException se ? se
                    : new SmcpException(e.getCause() != null ? e.getCause().getMessage() : "the request failed");
        }
    }

    /** Emits {@code event} without waiting for an answer. */
    void emit(String event, JsonNode payload) {
        socket.emit(event, toLibrary(payload));
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            socket.off();
            socket.close();
            http.dispatcher().executorService().shutdown();
            http.connectionPool().evictAll();
        }
    }

    private void disconnected(String reason) {
        if (closed.get()) return;
        close();
        listener.disconnected(reason, false);
    }

    private void connectError(Object error) {
        if (closed.get()) return;
        if (error instanceof JSONObject refusal) {
            // the server's connect handler refused the agent (its role or token): retrying would not help
            String message = refusal.optString("message", "refused");
            close();
            listener.disconnected("the office server refused the agent: " + message, true);
            return;
        }
        // A transport error hides the HTTP answer: ask the same URL plainly, once at a time, off the event thread.
        if (!probing.compareAndSet(false, true)) return;
        Thread.ofVirtual().name("smcp-probe").start(() -> {
            try {
                SmcpHandshakeProbe.Refusal refusal = SmcpHandshakeProbe.check(config, version, http).orElse(null);
                if (refusal != null) {
                    close();
                    listener.refused(refusal);
                } else if (!closed.get()) {
                    String detail = error instanceof Throwable t && t.getMessage() != null ? t.getMessage() : String.valueOf(error);
                    close();
                    listener.disconnected("cannot reach the office server at " + config.url() + " (" + detail + "); trying again", false);
                }
            } finally {
                probing.set(false);
            }
        });
    }

    // ---- org.json (the library's JSON) <-> Jackson ----

    static JsonNode toJson(Object value) {
        if (value == null || value == JSONObject.NULL) return NullNode.getInstance();
        if (value instanceof JSONObject || value instanceof JSONArray) {
            try {
                return Json.mapper().readTree(value.toString());
            } catch (java.io.IOException e) {
                return NullNode.getInstance();
            }
        }
        if (value instanceof Boolean b) return BooleanNode.valueOf(b);
        if (value instanceof Number n) return Json.mapper().valueToTree(n);
        return TextNode.valueOf(String.valueOf(value));
    }

    static Object toLibrary(JsonNode node) {
        try {
            if (node == null || node.isNull()) return JSONObject.NULL;
            if (node.isObject()) return new JSONObject(node.toString());
            if (node.isArray()) return new JSONArray(node.toString());
            if (node.isBoolean()) return node.booleanValue();
            if (node.isNumber()) return node.numberValue();
            return node.asText();
        } catch (JSONException e) {
            log.debug("cannot convert {} for Socket.IO", node.getNodeType());
            return JSONObject.NULL;
        }
    }
}
