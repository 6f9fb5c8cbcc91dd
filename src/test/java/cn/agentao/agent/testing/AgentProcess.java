package cn.agentao.agent.testing;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The real {@code bin/agent --acp} as a child process, driven over its pipes like an editor would: every
 * stdout line is checked to be a JSON-RPC message, requests from the agent are answered by handlers.
 */
public final class AgentProcess implements AutoCloseable {
    private final Process process;
    private final OutputStream stdin;
    private final List<String> stdoutLines = Collections.synchronizedList(new ArrayList<>());
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    private final List<JsonNode> messages = Collections.synchronizedList(new ArrayList<>());
    private final LinkedBlockingQueue<JsonNode> inbox = new LinkedBlockingQueue<>();
    private final Map<String, Function<JsonNode, JsonNode>> clientHandlers = new ConcurrentHashMap<>();
    private final Map<String, JsonNode> clientRefusals = new ConcurrentHashMap<>();
    private final StringBuffer stderr = new StringBuffer();
    private final AtomicLong ids = new AtomicLong(1000);
    private final Thread stdoutReader;
    private final Thread stderrReader;

    private AgentProcess(Process process) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.stdoutReader = Thread.ofPlatform().daemon().start(this::readStdout);
        this.stderrReader = Thread.ofPlatform().daemon().start(this::readStderr);
    }

    public static Path home() {
        String h = System.getProperty("agent.home");
        return h != null ? Path.of(h) : Path.of("").toAbsolutePath();
    }

    /** Starts bin/agent with {@code args}; {@code env} is added to a clean environment (PATH, HOME kept). */
    public static AgentProcess start(Map<String, String> env, String... args) throws IOException {
        return new AgentProcess(command(env, args).start());
    }

    /**
     * {@code bin/agent args} in a clean environment: PATH, HOME, JAVA_HOME, LANG and TMPDIR kept, the XDG config,
     * data and state directories under a fresh temporary directory, then {@code env}.
     */
    public static ProcessBuilder command(Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(home().resolve("bin/agent").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> e = pb.environment();
        Map<String, String> keep = new HashMap<>();
        for (String k : List.of("PATH", "HOME", "JAVA_HOME", "LANG", "TMPDIR")) if (e.containsKey(k)) keep.put(k, e.get(k));
        e.clear();
        e.putAll(keep);
        Path tmp = Files.createTempDirectory("agent-it");
        e.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
        e.put("XDG_DATA_HOME", tmp.resolve("data").toString());
        e.put("XDG_STATE_HOME", tmp.resolve("state").toString());
        e.putAll(env);
        return pb;
    }

    /** Starts {@code bin/agent --acp} with {@code configJson} as the user's config.json under {@code dir}, sessions stored there. */
    public static AgentProcess startWithUserConfig(Path dir, String configJson) throws IOException {
        Path config = Files.createDirectories(dir.resolve("config/agent"));
        Files.writeString(config.resolve("config.json"), configJson);
        return start(Map.of("XDG_CONFIG_HOME", dir.resolve("config").toString(),
                "AGENT_SESSIONS_DIR", dir.resolve("store").toString()), "--acp");
    }

    /** The params of a {@code session/prompt} of one text block. */
    public static ObjectNode prompt(String sessionId, String text) {
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    /** Everything the agent said in {@code sessionId} so far ({@code agent_message_chunk} texts joined). */
    public String agentText(String sessionId) {
        StringBuilder out = new StringBuilder();
        for (JsonNode u : updates(sessionId)) {
            if ("agent_message_chunk".equals(u.path("sessionUpdate").asText())) out.append(u.path("content").path("text").asText());
        }
        return out.toString();
    }

    /** Starts a command made with {@link #command} (e.g. with a wrapper such as bwrap put in front). */
    public static AgentProcess start(ProcessBuilder command) throws IOException {
        return new AgentProcess(command.start());
    }

    /** As {@link #start} with {@code dir} as the process's working directory (a door whose workspace is its cwd). */
    public static AgentProcess startIn(Path dir, Map<String, String> env, String... args) throws IOException {
        return new AgentProcess(command(env, args).directory(dir.toFile()).start());
    }

    /** Starts {@code launcher} (e.g. an unpacked release archive's bin/agent) with exactly {@code env}. */
    public static AgentProcess startExactly(Path launcher, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(launcher.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.environment().putAll(env);
        return new AgentProcess(pb.start());
    }

    public Process process() { return process; }

    /** Answers the agent's requests for {@code method} with {@code handler}'s result (null → error). */
    public void onClientRequest(String method, Function<JsonNode, JsonNode> handler) {
        clientHandlers.put(method, handler);
    }

    /** Answers the agent's requests for {@code method} with the JSON-RPC {@code error} object, as a client that refuses. */
    public void refuseClientRequest(String method, JsonNode error) {
        clientRefusals.put(method, error);
    }

    /** Writes one line; synchronized on this object, so a test writing raw bytes can hold the same lock. */
    public synchronized void sendRaw(String line) {
        try {
            stdin.write(line.getBytes(StandardCharsets.UTF_8));
            stdin.write('\n');
            stdin.flush();
        } catch (IOException e) {
            throw new IllegalStateException("agent stdin closed", e);
        }
    }

    public void send(JsonNode message) { sendRaw(message.toString()); }

    public long nextId() { return ids.incrementAndGet(); }

    public static ObjectNode request(long id, String method, JsonNode params) {
        ObjectNode m = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
        if (params != null) m.set("params", params);
        return m;
    }

    public void notify(String method, JsonNode params) {
        ObjectNode m = Json.object().put("jsonrpc", "2.0").put("method", method);
        m.set("params", params);
        send(m);
    }

    /** Sends a request and waits for its response (result or error envelope). */
    public JsonNode call(String method, JsonNode params) throws InterruptedException {
        return call(method, params, Duration.ofSeconds(20));
    }

    public JsonNode call(String method, JsonNode params, Duration timeout) throws InterruptedException {
        long id = nextId();
        send(request(id, method, params));
        return awaitResponse(id, timeout);
    }

    /** Sends a request without waiting; returns its id. */
    public long start(String method, JsonNode params) {
        long id = nextId();
        send(request(id, method, params));
        return id;
    }

    public JsonNode awaitResponse(long id, Duration timeout) throws InterruptedException {
        return await(m -> !m.has("method") && m.path("id").asLong(-1) == id && m.path("id").isIntegralNumber(), timeout);
    }

    /** Waits for the first not-yet-consumed message matching {@code p}. */
    public JsonNode await(Predicate<JsonNode> p, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (consumedLock) {
            for (JsonNode m : pending) if (p.test(m)) { pending.remove(m); return m; }
        }
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new AssertionError("timed out waiting for a message; stderr:\n" + stderr());
            JsonNode m = inbox.poll(left, TimeUnit.NANOSECONDS);
            if (m == null) continue;
            if (p.test(m)) return m;
            synchronized (consumedLock) { pending.add(m); }
        }
    }

    private final Object consumedLock = new Object();
    private final List<JsonNode> pending = new ArrayList<>();

    /** Every message the agent wrote so far, in order. */
    public List<JsonNode> messages() {
        synchronized (messages) { return List.copyOf(messages); }
    }

    /** session/update notifications for a session, in order. */
    public List<JsonNode> updates(String sessionId) {
        return messages().stream()
                .filter(m -> "session/update".equals(m.path("method").asText()))
                .filter(m -> sessionId.equals(m.path("params").path("sessionId").asText()))
                .map(m -> m.path("params").path("update")).toList();
    }

    public List<String> stdoutLines() {
        synchronized (stdoutLines) { return List.copyOf(stdoutLines); }
    }

    /** Lines on stdout that were not JSON-RPC 2.0 messages. */
    public List<String> violations() {
        synchronized (violations) { return List.copyOf(violations); }
    }

    public String stderr() { return stderr.toString(); }

    public void closeStdin() throws IOException { stdin.close(); }

    /** Waits for exit; returns the exit code, or throws if it did not exit in time. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("agent did not exit within " + timeout);
        }
        stdoutReader.join(2000);
        return process.exitValue();
    }

    private void readStdout() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                stdoutLines.add(line);
                JsonNode m;
                try {
                    m = Json.mapper().readTree(line);
                } catch (IOException e) {
                    violations.add(line);
                    continue;
                }
                if (m == null || !m.isObject() || !"2.0".equals(m.path("jsonrpc").asText())) {
                    violations.add(line);
                    continue;
                }
                messages.add(m);
                if (m.has("method") && m.has("id")) answerClientRequest(m);
                inbox.add(m);
            }
        } catch (IOException ignored) {
            // process ended
        }
    }

    private void answerClientRequest(JsonNode m) {
        JsonNode refusal = clientRefusals.get(m.path("method").asText());
        if (refusal != null) {
            ObjectNode reply = Json.object().put("jsonrpc", "2.0");
            reply.set("id", m.get("id"));
            reply.set("error", refusal);
            send(reply);
            return;
        }
        Function<JsonNode, JsonNode> h = clientHandlers.get(m.path("method").asText());
        if (h == null) return; // left unanswered: the test answers it itself
        Thread.ofVirtual().start(() -> {
            JsonNode result = h.apply(m.path("params"));
            ObjectNode reply = Json.object().put("jsonrpc", "2.0");
            reply.set("id", m.get("id"));
            if (result == null) reply.putObject("error").put("code", -32603).put("message", "test client refused");
            else reply.set("result", result);
            send(reply);
        });
    }

    private void readStderr() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) stderr.append(line).append('\n');
        } catch (IOException ignored) {
            // process ended
        }
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
