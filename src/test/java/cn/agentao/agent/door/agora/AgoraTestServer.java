package cn.agentao.agent.door.agora;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.java_websocket.WebSocket;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.server.WebSocketServer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * An Agora server for the tests, written from specs/agora-protocol.md: {@code /ws?agent_id=&token=}, register →
 * registered, heartbeats (a connection silent for longer than the timeout is closed), spaces (join → joined and
 * members to the others, leave), publish → a {@code space.event} to every member (the sender too), errors
 * ({@code UNAUTHORIZED}, {@code AGENT_EXISTS}, {@code SPACE_NOT_FOUND}, {@code RATE_LIMITED},
 * {@code INVALID_REQUEST}). Tests speak as people in a space with {@link #say}, {@link #sayInPieces},
 * {@link #cancel}, drop every connection with {@link #dropAll}, and read what agents sent with {@link #await}.
 */
public final class AgoraTestServer extends WebSocketServer implements AutoCloseable {
    /** What one agent sent. */
    public record Received(String agentId, ObjectNode message, long nanos) {
        public String type() { return message.path("type").asText(); }
    }

    private static final class Client {
        volatile String agentId;
        volatile String token;
        volatile boolean registered;
        volatile long lastSeen = System.nanoTime();
        final AtomicLong published = new AtomicLong();
    }

    private final Set<String> spaces = ConcurrentHashMap.newKeySet();
    private final Map<String, Set<WebSocket>> members = new ConcurrentHashMap<>();
    private final Map<String, WebSocket> agents = new ConcurrentHashMap<>();
    private final List<Received> received = new ArrayList<>();
    /** Guards {@link #received}; not the server object, whose monitor the WebSocket library uses itself. */
    private final Object lock = new Object();
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private final CountDownLatch started = new CountDownLatch(1);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "agora-test-server-timer");
        t.setDaemon(true);
        return t;
    });
    private volatile String requiredToken;
    private volatile Duration heartbeatTimeout = Duration.ofSeconds(60);
    private volatile long publishLimit = Long.MAX_VALUE;

    private AgoraTestServer(InetAddress address, String... spaces) {
        super(new InetSocketAddress(address, 0));
        setReuseAddr(true);
        this.spaces.addAll(List.of(spaces));
    }

    /** Starts a server (a free port from the OS) with these spaces. */
    public static AgoraTestServer start(String... spaces) throws InterruptedException {
        return startOn(InetAddress.getLoopbackAddress(), spaces);
    }

    /** Starts a server listening on {@code address} (e.g. this machine's own, to be reached through a proxy). */
    public static AgoraTestServer startOn(InetAddress address, String... spaces) throws InterruptedException {
        AgoraTestServer s = new AgoraTestServer(address, spaces);
        s.start();
        if (!s.started.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("test Agora server did not start");
        s.timer.scheduleWithFixedDelay(s::dropSilent, 100, 100, TimeUnit.MILLISECONDS);
        return s;
    }

    public AgoraTestServer requireToken(String token) { this.requiredToken = token; return this; }

    public AgoraTestServer heartbeatTimeout(Duration timeout) { this.heartbeatTimeout = timeout; return this; }

    /** After {@code n} publishes on one connection, every further one is answered RATE_LIMITED. */
    public AgoraTestServer publishLimit(long n) { this.publishLimit = n; return this; }

    public URI url() { return URI.create("ws://127.0.0.1:" + getPort() + "/ws"); }

    /** How many WebSocket connections were opened so far. */
    public long connections() { return connections.get(); }

    // ---------------------------------------------------------------- speaking as people in a space

    /** Says {@code text} in {@code space} as {@code from}; returns the event id. */
    public String say(String space, String from, String text) {
        return say(space, from, text, 0);
    }

    public String say(String space, String from, String text, int depth) {
        String id = "evt_" + events.incrementAndGet();
        ObjectNode e = event(space, id, from, text);
        if (depth > 0) ((ObjectNode) e.get("data")).put("depth", depth);
        broadcast(space, e);
        return id;
    }

    /** Sends an already-sent event again (as a server replaying after a reconnect might). */
    public void repeat(String space, String eventId, String from, String text) {
        broadcast(space, event(space, eventId, from, text));
    }

    /** Says {@code pieces} as {@code space.event.delta} messages, then {@code space.event.done}; returns the event id. */
    public String sayInPieces(String space, String from, String... pieces) {
        String id = "evt_" + events.incrementAndGet();
        for (int i = 0; i < pieces.length; i++) {
            ObjectNode d = Json.object().put("type", "space.event.delta").put("space", space).put("event_id", id);
            ObjectNode data = d.putObject("data").put("text", pieces[i]);
            if (i == 0) data.put("from", from);
            broadcast(space, d);
        }
        broadcast(space, Json.object().put("type", "space.event.done").put("space", space).put("event_id", id));
        return id;
    }

    /** Sends {@code space.event.delta} pieces without the done: the event stays open. */
    public String startPieces(String space, String from, String... pieces) {
        String id = "evt_" + events.incrementAndGet();
        for (String p : pieces) {
            ObjectNode d = Json.object().put("type", "space.event.delta").put("space", space).put("event_id", id);
            d.putObject("data").put("from", from).put("text", p);
            broadcast(space, d);
        }
        return id;
    }

    public void done(String space, String eventId) {
        broadcast(space, Json.object().put("type", "space.event.done").put("space", space).put("event_id", eventId));
    }

    public void cancel(String space, String eventId) {
        broadcast(space, Json.object().put("type", "space.event.cancel").put("space", space).put("event_id", eventId));
    }

    /** Closes every connection abruptly (as a restarting server would). */
    public void dropAll() {
        for (WebSocket c : getConnections()) {
            // a channel's close waits for the server's selector to wake; shutting the socket down sends the FIN now
            if (c instanceof org.java_websocket.WebSocketImpl impl && impl.getChannel() instanceof java.nio.channels.SocketChannel sc) {
                try {
                    sc.shutdownOutput();
                    sc.shutdownInput();
                } catch (java.io.IOException ignored) {
                    // already gone
                }
            }
            c.closeConnection(1006, "dropped by the test");
        }
    }

    // ---------------------------------------------------------------- what agents sent

    public List<Received> received() {
        synchronized (lock) {
            return List.copyOf(received);
        }
    }

    /** Waits for a message an agent sent that matches {@code p}; throws when none came within {@code timeout}. */
    public Received await(Predicate<Received> p, Duration timeout) throws InterruptedException {
        return awaitNth(1, p, timeout);
    }

    /** The {@code n}-th (1-based) message an agent sent that matches {@code p}, waiting for it. */
    public Received awaitNth(int n, Predicate<Received> p, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (true) {
                List<Received> matching = received.stream().filter(p).toList();
                if (matching.size() >= n) return matching.get(n - 1);
                long left = end - System.nanoTime();
                if (left <= 0) throw new AssertionError("fewer than " + n + " matching messages within " + timeout + "; got " + received);
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    public static Predicate<Received> type(String type) { return r -> r.type().equals(type); }

    public static Predicate<Received> published(String space) {
        return r -> r.type().equals("space.publish") && r.message().path("space").asText().equals(space);
    }

    // ---------------------------------------------------------------- the protocol

    @Override
    public void onStart() { started.countDown(); }

    @Override
    public void onOpen(WebSocket conn, ClientHandshake handshake) {
        connections.incrementAndGet();
        Client c = new Client();
        Map<String, String> query = query(handshake.getResourceDescriptor());
        c.agentId = query.get("agent_id");
        c.token = query.get("token");
        conn.setAttachment(c);
        if (!handshake.getResourceDescriptor().startsWith("/ws")) conn.close(1008, "unknown path");
    }

    private static Map<String, String> query(String resource) {
        Map<String, String> q = new HashMap<>();
        int i = resource.indexOf('?');
        if (i < 0) return q;
        for (String part : resource.substring(i + 1).split("&")) {
            int eq = part.indexOf('=');
            if (eq > 0) q.put(URLDecoder.decode(part.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return q;
    }

    @Override
    public void onMessage(WebSocket conn, String text) {
        Client c = conn.getAttachment();
        c.lastSeen = System.nanoTime();
        ObjectNode m;
        try {
            m = (ObjectNode) Json.mapper().readTree(text);
        } catch (Exception e) {
            error(conn, "INVALID_REQUEST", "not a JSON object", null);
            return;
        }
        try {
            handle(conn, c, m);
        } finally { // recorded once handled: a test that sees a publish knows its echo is already on its way
            synchronized (lock) {
                received.add(new Received(c.agentId, m, System.nanoTime()));
                lock.notifyAll();
            }
        }
    }

    private void handle(WebSocket conn, Client c, ObjectNode m) {
        String id = m.path("id").isTextual() ? m.path("id").asText() : null;
        String type = m.path("type").asText();
        if (!c.registered && !type.equals("agent.register")) {
            error(conn, "UNAUTHORIZED", "register first", id);
            return;
        }
        switch (type) {
            case "agent.register" -> register(conn, c, m, id);
            case "agent.heartbeat" -> conn.send(Json.object().put("type", "agent.heartbeat").put("timestamp", now()).toString());
            case "space.join" -> join(conn, c, m.path("space").asText(), id);
            case "space.leave" -> leave(conn, c, m.path("space").asText());
            case "space.publish" -> publish(conn, c, m, id);
            case "space.list" -> {
                ObjectNode r = Json.object().put("type", "space.list").put("id", id);
                spaces.forEach(s -> r.withArray("spaces").addObject().put("id", s).put("type", "public")
                        .put("member_count", members.getOrDefault(s, Set.of()).size()));
                conn.send(r.toString());
            }
            default -> error(conn, "INVALID_REQUEST", "unknown type '" + type + "'", id);
        }
    }

    private void register(WebSocket conn, Client c, ObjectNode m, String id) {
        String required = requiredToken;
        if (required != null && !required.equals(c.token)) {
            error(conn, "UNAUTHORIZED", "invalid token", id);
            conn.close(4001, "unauthorized");
            return;
        }
        String agentId = m.path("agent").path("id").asText(c.agentId);
        if (agentId == null || agentId.isEmpty() || c.agentId == null || !agentId.equals(c.agentId)) {
            error(conn, "INVALID_REQUEST", "agent.id must match agent_id", id);
            return;
        }
        WebSocket other = agents.putIfAbsent(agentId, conn);
        if (other != null && other != conn) {
            error(conn, "AGENT_EXISTS", "agent '" + agentId + "' is already connected", id);
            conn.close(4009, "agent exists");
            return;
        }
        c.registered = true;
        ObjectNode r = Json.object().put("type", "agent.registered").put("id", id);
        r.putObject("agent").put("id", agentId).put("connection_id", "ws-" + connections.get());
        conn.send(r.toString());
    }

    private void join(WebSocket conn, Client c, String space, String id) {
        if (!spaces.contains(space)) {
            error(conn, "SPACE_NOT_FOUND", "Space '" + space + "' does not exist", id);
            return;
        }
        Set<WebSocket> in = members.computeIfAbsent(space, k -> ConcurrentHashMap.newKeySet());
        in.add(conn);
        ObjectNode r = Json.object().put("type", "space.joined").put("id", id).put("space", space);
        memberNames(space).forEach(r.putArray("members")::add);
        conn.send(r.toString());
        membersChanged(space, c.agentId, null, conn);
    }

    private void leave(WebSocket conn, Client c, String space) {
        Set<WebSocket> in = members.get(space);
        if (in != null && in.remove(conn)) membersChanged(space, null, c.agentId, conn);
    }

    private void publish(WebSocket conn, Client c, ObjectNode m, String id) {
        String space = m.path("space").asText();
        if (!members.getOrDefault(space, Set.of()).contains(conn)) {
            error(conn, spaces.contains(space) ? "INVALID_REQUEST" : "SPACE_NOT_FOUND", "not a member of '" + space + "'", id);
            return;
        }
        if (c.published.incrementAndGet() > publishLimit) {
            error(conn, "RATE_LIMITED", "too many messages", id);
            return;
        }
        ObjectNode e = Json.object().put("type", "space.event").put("space", space).put("event_id", "evt_" + events.incrementAndGet());
        e.set("data", m.path("data").deepCopy());
        broadcast(space, e);
    }

    private Set<String> memberNames(String space) {
        Set<String> names = new LinkedHashSet<>();
        for (WebSocket w : members.getOrDefault(space, Set.of())) names.add(((Client) w.getAttachment()).agentId);
        return names;
    }

    private void membersChanged(String space, String joined, String left, WebSocket except) {
        ObjectNode r = Json.object().put("type", "space.members").put("space", space);
        memberNames(space).forEach(r.putArray("members")::add);
        if (joined == null) r.putNull("joined"); else r.put("joined", joined);
        if (left == null) r.putNull("left"); else r.put("left", left);
        for (WebSocket w : members.getOrDefault(space, Set.of())) if (w != except && w.isOpen()) w.send(r.toString());
    }

    private ObjectNode event(String space, String id, String from, String text) {
        ObjectNode e = Json.object().put("type", "space.event").put("space", space).put("event_id", id).put("timestamp", now());
        e.putObject("data").put("from", from).put("text", text).put("timestamp", now());
        return e;
    }

    private void broadcast(String space, ObjectNode message) {
        String text = message.toString();
        for (WebSocket w : members.getOrDefault(space, Set.of())) if (w.isOpen()) w.send(text);
    }

    private static void error(WebSocket conn, String code, String message, String requestId) {
        ObjectNode e = Json.object().put("type", "error").put("code", code).put("message", message);
        if (requestId != null) e.put("request_id", requestId);
        if (conn.isOpen()) conn.send(e.toString());
    }

    private static long now() { return System.currentTimeMillis() / 1000; }

    private void dropSilent() {
        long limit = heartbeatTimeout.toNanos();
        for (WebSocket w : getConnections()) {
            Client c = w.getAttachment();
            if (c != null && System.nanoTime() - c.lastSeen > limit) w.close(4000, "heartbeat timeout");
        }
    }

    @Override
    public void onClose(WebSocket conn, int code, String reason, boolean remote) {
        Client c = conn.getAttachment();
        for (Map.Entry<String, Set<WebSocket>> e : members.entrySet()) {
            if (e.getValue().remove(conn) && c != null) membersChanged(e.getKey(), null, c.agentId, conn);
        }
        if (c != null && c.agentId != null) agents.remove(c.agentId, conn);
    }

    @Override
    public void onError(WebSocket conn, Exception ex) { }

    /** Whether {@code agentId} is a member of {@code space} now. */
    public boolean isMember(String space, String agentId) { return memberNames(space).contains(agentId); }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            stop(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until {@code agentId} is a member of {@code space}. */
    public void awaitMember(String space, String agentId, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!isMember(space, agentId)) {
            if (System.nanoTime() > end) throw new AssertionError(agentId + " did not join " + space + " within " + timeout);
            Thread.sleep(20);
        }
    }

    /** Waits until {@code agentId} is not a member of {@code space}. */
    public void awaitNotMember(String space, String agentId, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (isMember(space, agentId)) {
            if (System.nanoTime() > end) throw new AssertionError(agentId + " is still in " + space + " after " + timeout);
            Thread.sleep(20);
        }
    }

    public static JsonNode data(Received r) { return r.message().path("data"); }
}
