package cn.agentao.agent.security;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The real agent attacked as a hostile project would: a throwaway HOME holding a secret and a user
 * configuration, a workspace the attacker controls, the scripted model asking for the attacker's tool calls,
 * and a client that answers permission questions as told (or records that one was asked).
 *
 * <p>One agent process serves many cases (each case is a fresh session), so a security suite of hundreds
 * of cases stays fast. Every case asserts an absent side effect, never merely that a question was asked.
 */
public final class SecurityHarness implements AutoCloseable {
    /** A value that stands for the user's real provider key: it must never leave the agent's own process. */
    public static final String SECRET_KEY = "sk-secret-" + Long.toHexString(Double.doubleToLongBits(Math.random()));

    public final Path root;
    public final Path home;
    public final Path store;
    public final FakeModelServer model;
    public final AgentProcess agent;
    /** Every permission question the client was asked, in order. */
    public final List<JsonNode> questions = new CopyOnWriteArrayList<>();
    private final AtomicReference<String> answer = new AtomicReference<>("reject_once");
    private final AtomicInteger workspaces = new AtomicInteger();

    private SecurityHarness(Path root, Map<String, String> env, ObjectNode clientCapabilities) throws Exception {
        this.root = root;
        this.home = Files.createDirectories(root.resolve("home"));
        this.store = root.resolve("store");
        Files.writeString(home.resolve("secret.txt"), "TOP-SECRET-HOME-FILE\n");
        Files.createDirectories(home.resolve(".ssh"));
        Files.writeString(home.resolve(".ssh/id_rsa"), "TOP-SECRET-SSH-KEY\n");
        this.model = FakeModelServer.start();
        Map<String, String> e = new HashMap<>(model.openAiEnvironment());
        e.put("OPENAI_API_KEY", SECRET_KEY);
        e.put("HOME", home.toString());
        e.put("AGENT_SESSIONS_DIR", store.toString());
        e.putAll(env);
        this.agent = AgentProcess.start(e, "--acp");
        agent.onClientRequest("session/request_permission", params -> {
            questions.add(params);
            ObjectNode r = Json.object();
            String a = answer.get();
            if (a == null) r.putObject("outcome").put("outcome", "cancelled");
            else r.putObject("outcome").put("outcome", "selected").put("optionId", a);
            return r;
        });
        ObjectNode init = Json.object().put("protocolVersion", 1);
        init.set("clientCapabilities", clientCapabilities);
        JsonNode r = agent.call("initialize", init);
        if (!r.has("result")) throw new IllegalStateException("initialize failed: " + r);
    }

    /**
     * Starts the agent with the provider's key set to {@link #SECRET_KEY}, HOME in {@code root/home}, the store
     * in {@code root/store}; {@code env} is added last (e.g. {@code AGENT_SANDBOX=none}).
     */
    public static SecurityHarness start(Path root, Map<String, String> env) throws Exception {
        return new SecurityHarness(root, env, Json.object());
    }

    public static SecurityHarness start(Path root, Map<String, String> env, ObjectNode clientCapabilities) throws Exception {
        return new SecurityHarness(root, env, clientCapabilities);
    }

    /** A fresh, empty workspace directory for one case. */
    public Path newWorkspace() throws IOException {
        return Files.createDirectories(root.resolve("ws-" + workspaces.incrementAndGet()));
    }

    /** How the client answers the next permission questions: an option id, or null to cancel them. */
    public void answer(String optionId) { answer.set(optionId); }

    /** Opens a session in {@code cwd}; returns its id (fails the case when the agent refuses). */
    public String newSession(Path cwd) throws InterruptedException {
        JsonNode r = agent.call("session/new", Json.object().put("cwd", cwd.toString())
                .set("mcpServers", Json.mapper().createArrayNode()), Duration.ofSeconds(30));
        if (!r.has("result")) throw new IllegalStateException("session/new failed: " + r);
        return r.path("result").path("sessionId").asText();
    }

    /** Puts the session in a mode ({@code read-only}, {@code workspace-write}, {@code full-access}, {@code plan}). */
    public void setMode(String sessionId, String mode) throws InterruptedException {
        JsonNode r = agent.call("session/set_mode", Json.object().put("sessionId", sessionId).put("modeId", mode));
        if (!r.has("result")) throw new IllegalStateException("set_mode failed: " + r);
    }

    /** What one case produced: the tool result the model saw, the questions asked during it, the updates. */
    public record Outcome(String stopReason, String toolResult, List<JsonNode> questions, List<JsonNode> updates) {
        public boolean asked() { return !questions.isEmpty(); }
    }

    /**
     * Opens a session in {@code cwd} in {@code mode}; the model calls {@code tool} with {@code argumentsJson}
     * once and then says "done". Returns what the model was told of the call.
     */
    public Outcome runTool(Path cwd, String mode, String tool, String argumentsJson) throws InterruptedException {
        String id = newSession(cwd);
        if (mode != null) setMode(id, mode);
        return runToolIn(id, tool, argumentsJson);
    }

    /** As {@link #runTool} in an open session. */
    public Outcome runToolIn(String sessionId, String tool, String argumentsJson) throws InterruptedException {
        String callId = "call_" + Long.toHexString(System.nanoTime());
        String marker = "case " + callId;
        model.when(FakeModelServer.lastUserMessageContains(marker))
                .reply(Script.reply().toolCall(callId, tool, argumentsJson, 2), Script.textReply("done"));
        int before = questions.size();
        int updatesBefore = agent.updates(sessionId).size();
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", marker);
        JsonNode r = agent.call("session/prompt", p, Duration.ofSeconds(60));
        if (!r.has("result")) throw new IllegalStateException("session/prompt failed: " + r);
        List<JsonNode> all = agent.updates(sessionId);
        return new Outcome(r.path("result").path("stopReason").asText(), toolResultSentToModel(callId),
                List.copyOf(questions.subList(before, questions.size())),
                List.copyOf(all.subList(Math.min(updatesBefore, all.size()), all.size())));
    }

    /** The tool message the model received for {@code callId}, or null when none reached it. */
    public String toolResultSentToModel(String callId) {
        for (RecordedRequest req : model.requests()) {
            for (JsonNode m : req.messages()) {
                if ("tool".equals(m.path("role").asText()) && callId.equals(m.path("tool_call_id").asText())) {
                    return m.path("content").asText();
                }
            }
        }
        return null;
    }

    /** Everything the model was ever sent, as raw request bodies. */
    public String everythingSentToModel() {
        StringBuilder all = new StringBuilder();
        for (RecordedRequest req : model.requests()) all.append(req.body().toString()).append('\n');
        return all.toString();
    }

    /** Every byte of every saved session file (to check that a secret never reached the store). */
    public String everythingInStore() throws IOException {
        if (!Files.isDirectory(store)) return "";
        List<String> parts = new ArrayList<>();
        try (var files = Files.walk(store)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(f)) parts.add(Files.readString(f));
            }
        }
        return String.join("\n", parts);
    }

    @Override
    public void close() {
        agent.close();
        model.close();
    }
}
