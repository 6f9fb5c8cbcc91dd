package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.connect.mcp.McpNames;
import cn.agentao.agent.connect.mcp.McpToolResult;
import cn.agentao.agent.connect.mcp.McpToolSchemas;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.langchain4j.agent.tool.ToolSpecification;
import cn.agentao.agent.util.CancelledException;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.spec.McpSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The agent in its A2C-SMCP office: joins it ({@code server:join_office}, again after every reconnect), keeps the
 * tools of every Computer in it ({@code server:list_room}, then {@code client:get_tools} per Computer) up to date
 * with the office's notifications, and calls them ({@code client:tool_call}, cancelled with
 * {@code server:tool_call_cancel}). Each connection offers the newest protocol version it speaks and, when the server
 * refuses it (4008), is made once more with a version the refusal says the server accepts (unless {@code a2cVersion}
 * forces one); a lost connection is made again with backoff, from the newest version again, so an office upgraded
 * meanwhile is spoken to in its new version.
 * Office events are handled one at a time on one thread; tool calls run on the caller's thread. What the user should
 * know (a Computer came or went, the connection was lost) goes to the notice listeners.
 */
public final class SmcpOffice implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SmcpOffice.class);
    private static final TypeReference<Map<String, Object>> SCHEMA_MAP = new TypeReference<>() {};
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** How long after the tool's own timeout the agent still waits for the Computer's answer. */
    private static final Duration GRACE = Duration.ofSeconds(5);
    /** Backoff between connections: the first retry after 0.5 s, doubling up to 10 s, each ±50 % at random. */
    private static final long RETRY_FIRST_MS = 500;
    private static final long RETRY_MAX_MS = 10_000;

    public enum State { NOT_STARTED, CONNECTING, JOINED, RECONNECTING, FAILED, CLOSED }

    /** What {@code agent smcp status} and {@code /smcp} show. */
    public record Status(String url, String office, String agent, String version, State state, String problem,
                         Map<String, List<String>> computers) {}

    private final SmcpConfig config;
    private final ExecutorService events = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("smcp-office").factory());
    private final CopyOnWriteArrayList<Consumer<String>> noticeListeners = new CopyOnWriteArrayList<>();
    private final Map<String, List<SmcpTool>> computers = new LinkedHashMap<>(); // guarded by this
    private final Map<String, JsonNode> rawTools = new LinkedHashMap<>(); // GetToolsRet.tools per Computer; guarded by this
    private volatile Map<String, SmcpTool> byName = Map.of();
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final CountDownLatch settled = new CountDownLatch(1);
    private volatile SmcpClient client;
    private volatile String version;
    private volatile boolean negotiated;
    private final SmcpClient.Listener listener = new SmcpClient.Listener() {
        @Override public void connected() { events.execute(SmcpOffice.this::join); }
        @Override public void notification(String event, JsonNode data) { events.execute(() -> notified(event, data)); }
        @Override public void disconnected(String reason, boolean permanent) { events.execute(() -> lost(reason, permanent)); }
        @Override public void refused(SmcpHandshakeProbe.Refusal refusal) { events.execute(() -> SmcpOffice.this.refused(refusal)); }
    };
    private volatile State state = State.NOT_STARTED;
    private volatile String problem;
    private volatile boolean everJoined;
    private int retries; // connections failed or lost since the last join; on the events thread

    private record Pending(String computer, CompletableFuture<List<JsonNode>> answer) {}

    public SmcpOffice(SmcpConfig config) {
        this.config = config;
        this.version = offered();
    }

    /** The version each new connection offers first. */
    private String offered() {
        return config.a2cVersion() != null ? config.a2cVersion() : SmcpVersions.LATEST;
    }

    public SmcpConfig config() { return config; }

    /** Starts connecting in the background (once). */
    public synchronized void start() {
        if (state != State.NOT_STARTED) return;
        state = State.CONNECTING;
        client = SmcpClient.open(config, version, listener);
    }

    /** The protocol version spoken (or being offered). */
    public String version() {
        return version;
    }

    private boolean v03() {
        return SmcpVersions.isV03(version);
    }

    /** Waits until the office is joined (with its Computers' tools) or cannot be; true when joined. */
    public boolean awaitSettled(Duration max) {
        try {
            settled.await(max.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return state == State.JOINED;
    }

    public void addNoticeListener(Consumer<String> listener) { noticeListeners.add(listener); }

    public void removeNoticeListener(Consumer<String> listener) { noticeListeners.remove(listener); }

    /** The tools the model is offered now (every Computer's tools and office requests). */
    public List<SmcpTool> tools() {
        return List.copyOf(byName.values());
    }

    /** {@link #tools()} as the model's tool list. */
    public List<ToolSpecification> toolSpecifications() {
        List<ToolSpecification> specs = new ArrayList<>();
        for (SmcpTool t : byName.values()) {
            specs.add(ToolSpecification.builder().name(t.name()).description(t.description())
                    .parameters(McpToolSchemas.parameters(Json.mapper().convertValue(t.schema(), SCHEMA_MAP))).build());
        }
        return specs;
    }

    public Optional<SmcpTool> tool(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public synchronized Status status() {
        Map<String, List<String>> view = new LinkedHashMap<>();
        computers.forEach((c, tools) -> view.put(c, tools.stream().filter(t -> t.kind() == SmcpTool.Kind.TOOL)
                .map(t -> t.remoteName().equals(t.name()) ? t.name() : t.name() + " (" + t.remoteName() + ")").toList()));
        String spoken = version + (config.a2cVersion() != null ? ", set by a2cVersion"
                : negotiated ? ", after the office refused " + SmcpVersions.LATEST : "");
        return new Status(config.url().toString(), config.office(), config.name(), spoken, state, problem, view);
    }

    // ---------------------------------------------------------------- calls

    /** Calls a Computer's tool; failures (tool errors, a Computer that left, a timeout) are an error result, never a hang. */
    public McpToolResult call(SmcpTool tool, JsonNode params, Cancellation cancel) throws CancelledException {
        return switch (tool.kind()) {
            case TOOL -> callTool(tool, params, cancel);
            case DESKTOP -> officeRequest(tool, "client:get_desktop", params, cancel);
            case RESOURCES -> resources(tool, params, cancel);
            case DOCUMENT -> officeRequest(tool, "client:get_dpe", params, cancel);
            case SKILLS -> skills(tool, cancel);
            case SKILL -> skill(tool, params, cancel);
        };
    }

    private McpToolResult callTool(SmcpTool tool, JsonNode params, Cancellation cancel) throws CancelledException {
        String reqId = UUID.randomUUID().toString();
        ObjectNode req = Json.object().put("agent", config.name()).put("req_id", reqId).put("computer", tool.computer())
                .put("tool_name", tool.remoteName());
        req.set("params", params != null && params.isObject() ? params : Json.object());
        req.put("timeout", config.toolTimeout().toSeconds());
        SmcpClient c = client;
        if (c == null || !c.connected()) return McpToolResult.error(notConnected());
        CompletableFuture<List<JsonNode>> answer = c.send("client:tool_call", req);
        pending.put(reqId, new Pending(tool.computer(), answer));
        try {
            List<JsonNode> values = SmcpClient.await(answer, config.toolTimeout().plus(GRACE), cancel);
            JsonNode first = values.isEmpty() ? null : values.get(0);
            if (first != null && first.path("code").asInt() == SmcpErrors.TIMEOUT && !first.has("content")) throw new TimeoutException();
            if (first != null && first.path("content").isArray()) {
                first = first.deepCopy();
                for (JsonNode item : first.get("content")) {
                    if (item instanceof ObjectNode o && o.path("_meta").path("a2c_blob_handle").isTextual()) inlineBlob(tool.computer(), o, cancel);
                }
            }
            return result(tool, first);
        } catch (CancelledException e) {
            cancelRemote(reqId);
            throw e;
        } catch (TimeoutException e) { // ours, or the server's (4004): the Computer may still be at it
            cancelRemote(reqId);
            return McpToolResult.error(tool.name() + ": Computer " + tool.computer() + " did not answer within "
                    + config.toolTimeout().toSeconds() + " s; the call was cancelled.");
        } catch (SmcpException e) {
            return McpToolResult.error(tool.name() + ": " + e.getMessage());
        } finally {
            pending.remove(reqId);
        }
    }

    private void cancelRemote(String reqId) {
        SmcpClient c = client;
        if (c != null && c.connected()) c.emit("server:tool_call_cancel", Json.object().put("agent", config.name()).put("req_id", reqId));
    }

    private static McpToolResult result(SmcpTool tool, JsonNode answer) {
        if (answer == null || answer.isNull()) return McpToolResult.error(tool.name() + ": the Computer sent an empty answer.");
        Optional<String> error = SmcpErrors.of(answer);
        if (error.isPresent()) return McpToolResult.error(tool.name() + ": " + error.get() + ".");
        try {
            McpToolResult r = McpToolResult.of(Json.mapper().treeToValue(answer, McpSchema.CallToolResult.class));
            Optional<String> ending = SmcpErrors.ofResult(answer);
            return r.isError() && ending.isPresent() ? McpToolResult.error(tool.name() + " on Computer " + tool.computer() + ": "
                    + ending.get() + (r.text().isBlank() ? "." : ": " + r.text())) : r;
        } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
            return McpToolResult.error(tool.name() + ": the Computer's answer is not an MCP tool result: " + abbreviate(answer.toString()));
        }
    }

    private McpToolResult officeRequest(SmcpTool tool, String event, JsonNode params, Cancellation cancel) throws CancelledException {
        ObjectNode req = Json.object().put("agent", config.name()).put("req_id", UUID.randomUUID().toString()).put("computer", tool.computer());
        if (params != null && params.isObject()) params.properties().forEach(e -> { if (!e.getValue().isNull()) req.set(e.getKey(), e.getValue()); });
        if (tool.kind() == SmcpTool.Kind.DOCUMENT && !req.path("uri").isTextual()) {
            return McpToolResult.error(tool.name() + ": give the dpe:// URI of the document as \"uri\".");
        }
        try {
            JsonNode answer = ask(event, req, cancel);
            if (tool.kind() == SmcpTool.Kind.DESKTOP) {
                List<String> desktops = new ArrayList<>();
                answer.path("desktops").forEach(d -> desktops.add(d.asText()));
                return text(desktops.isEmpty() ? "(no windows are open on " + tool.computer() + ")" : String.join("\n\n---\n\n", desktops));
            }
            StringBuilder out = new StringBuilder("access URI: ").append(answer.path("uri").asText("(none)"));
            if (answer.hasNonNull("mime_type")) out.append("\nmime type: ").append(answer.get("mime_type").asText());
            if (answer.hasNonNull("size")) out.append("\nsize: ").append(answer.get("size").asLong()).append(" bytes");
            return text(out.toString());
        } catch (SmcpException e) {
            return McpToolResult.error(tool.name() + ": " + e.getMessage());
        }
    }

    /** One server's resources, or (without {@code mcp_server}) the first page of each server's from {@code client:get_config}. */
    private McpToolResult resources(SmcpTool tool, JsonNode params, Cancellation cancel) throws CancelledException {
        try {
            List<String> servers = new ArrayList<>();
            if (params != null && params.path("mcp_server").isTextual()) {
                servers.add(params.get("mcp_server").asText());
            } else {
                ObjectNode req = Json.object().put("agent", config.name()).put("req_id", UUID.randomUUID().toString()).put("computer", tool.computer());
                ask("client:get_config", req, cancel).path("servers").fieldNames().forEachRemaining(servers::add);
            }
            StringBuilder out = new StringBuilder();
            for (String server : servers) {
                ObjectNode req = Json.object().put("agent", config.name()).put("req_id", UUID.randomUUID().toString())
                        .put("computer", tool.computer()).put("mcp_server", server);
                if (params != null && params.path("cursor").isTextual()) req.put("cursor", params.get("cursor").asText());
                JsonNode answer = ask("client:get_resources", req, cancel);
                out.append("MCP server ").append(server).append(":\n");
                answer.path("resources").forEach(r -> out.append("- ").append(r.path("uri").asText()).append(" — ")
                        .append(r.path("name").asText("")).append(r.hasNonNull("mimeType") ? " (" + r.get("mimeType").asText() + ")" : "").append('\n'));
                if (answer.hasNonNull("next_cursor")) out.append("(more: cursor ").append(answer.get("next_cursor").asText()).append(")\n");
            }
            return text(servers.isEmpty() ? "(Computer " + tool.computer() + " has no MCP servers)" : out.toString().strip());
        } catch (SmcpException e) {
            return McpToolResult.error(tool.name() + ": " + e.getMessage());
        }
    }

    private JsonNode ask(String event, ObjectNode req, Cancellation cancel) throws SmcpException, CancelledException {
        SmcpClient c = client;
        if (c == null || !c.connected()) throw new SmcpException(notConnected());
        try {
            List<JsonNode> values = c.request(event, req, REQUEST_TIMEOUT, cancel);
            JsonNode answer = values.isEmpty() ? Json.object() : values.get(0);
            Optional<String> error = SmcpErrors.of(answer);
            if (error.isPresent()) throw new SmcpException(error.get());
            return answer;
        } catch (TimeoutException e) {
            throw new SmcpException("the office did not answer " + event + " within " + REQUEST_TIMEOUT.toSeconds() + " s");
        }
    }

    // ---------------------------------------------------------------- SKILLs and blobs (0.3)

    private McpToolResult skills(SmcpTool tool, Cancellation cancel) throws CancelledException {
        try {
            JsonNode answer = ask("client:get_skills", request(tool), cancel);
            StringBuilder out = new StringBuilder();
            for (JsonNode s : answer.path("skills")) {
                out.append("- ").append(s.path("name").asText("?"));
                if (s.path("description").isTextual()) out.append(" — ").append(s.get("description").asText());
                out.append('\n');
            }
            return text(out.isEmpty() ? "(Computer " + tool.computer() + " has no SKILLs)" : out.toString().strip());
        } catch (SmcpException e) {
            return McpToolResult.error(tool.name() + ": " + e.getMessage());
        }
    }

    /** A SKILL's file: its body inline, or (binary or large) fetched by its blob handle and checked. */
    private McpToolResult skill(SmcpTool tool, JsonNode params, Cancellation cancel) throws CancelledException {
        if (params == null || !params.path("name").isTextual()) return McpToolResult.error(tool.name() + ": give the SKILL's \"name\".");
        ObjectNode req = request(tool).put("name", params.get("name").asText());
        if (params.path("rel_path").isTextual()) req.put("rel_path", params.get("rel_path").asText());
        try {
            JsonNode answer = ask("client:get_skill", req, cancel);
            if (answer.path("body").isTextual()) return text(answer.get("body").asText());
            if (!answer.path("blob_handle").isTextual()) throw new SmcpException("the Computer sent neither a body nor a blob handle");
            byte[] bytes = SmcpBlob.fetch(this::ask, config.name(), tool.computer(), answer.get("blob_handle").asText(),
                    answer.path("total_size").canConvertToLong() ? answer.get("total_size").asLong() : null,
                    answer.path("sha256").isTextual() ? answer.get("sha256").asText() : null, cancel);
            String mime = answer.path("mime_type").asText("application/octet-stream");
            if (mime.startsWith("text/") || mime.endsWith("json") || mime.endsWith("+xml") || mime.endsWith("markdown")) {
                return text(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
            }
            return text(answer.path("rel_path").asText("SKILL.md") + ": " + mime + ", " + bytes.length + " bytes (binary; checked against its sha256)");
        } catch (SmcpException e) {
            return McpToolResult.error(tool.name() + ": " + e.getMessage());
        }
    }

    /**
     * A tool result's content item whose bytes the Computer left out ({@code _meta.a2c_blob_handle}, 0.3): fetched with
     * {@code client:get_blob}, checked, and put back where MCP keeps them ({@code data}, or {@code resource.blob}).
     */
    private void inlineBlob(String computer, ObjectNode item, Cancellation cancel) throws SmcpException, CancelledException {
        ObjectNode meta = (ObjectNode) item.get("_meta");
        byte[] bytes = SmcpBlob.fetch(this::ask, config.name(), computer, meta.get("a2c_blob_handle").asText(),
                meta.path("a2c_total_size").canConvertToLong() ? meta.get("a2c_total_size").asLong() : null,
                meta.path("a2c_sha256").isTextual() ? meta.get("a2c_sha256").asText() : null, cancel);
        String data = java.util.Base64.getEncoder().encodeToString(bytes);
        if (item.path("resource").isObject()) ((ObjectNode) item.get("resource")).put("blob", data);
        else item.put("data", data);
        meta.remove(List.of("a2c_blob_handle", "a2c_total_size", "a2c_sha256"));
        if (meta.isEmpty()) item.remove("_meta");
    }

    private ObjectNode request(SmcpTool tool) {
        return Json.object().put("agent", config.name()).put("req_id", UUID.randomUUID().toString()).put("computer", tool.computer());
    }

    private static McpToolResult text(String text) {
        return new McpToolResult(text, List.of(cn.agentao.agent.core.content.ContentBlock.text(text)), false);
    }

    private String notConnected() {
        return "not connected to office " + config.office() + " at " + config.url() + (problem != null ? " (" + problem + ")" : "");
    }

    // ---------------------------------------------------------------- office events (on the events thread)

    private void join() {
        SmcpClient c = client;
        if (c == null) return;
        try {
            List<JsonNode> ack = c.request("server:join_office", Json.object().put("role", "agent").put("name", config.name())
                    .put("office_id", config.office()), REQUEST_TIMEOUT, Cancellation.NONE);
            boolean ok = !ack.isEmpty() && ack.get(0).asBoolean(false);
            if (!ok) {
                String why = ack.size() > 1 && !ack.get(1).isNull() ? ack.get(1).asText() : null;
                fail("could not join office " + config.office() + ": " + SmcpErrors.describe(why));
                return;
            }
            JsonNode room = c.request("server:list_room", Json.object().put("agent", config.name())
                    .put("req_id", UUID.randomUUID().toString()).put("office_id", config.office()), REQUEST_TIMEOUT, Cancellation.NONE).get(0);
            Optional<String> error = SmcpErrors.of(room);
            if (error.isPresent()) throw new SmcpException(error.get());
            Map<String, List<SmcpTool>> fresh = new LinkedHashMap<>();
            for (JsonNode s : room.path("sessions")) {
                if ("computer".equals(s.path("role").asText()) && s.path("name").isTextual()) fresh.put(s.get("name").asText(), List.of());
            }
            synchronized (this) {
                computers.clear();
                computers.putAll(fresh);
            }
            for (String computer : fresh.keySet()) fetchTools(computer);
            boolean again = everJoined;
            everJoined = true;
            retries = 0;
            problem = null;
            state = State.JOINED;
            settled.countDown();
            log.info("smcp: joined office {} at {} as {}: {}", config.office(), config.url(), config.name(), status().computers().keySet());
            if (again) notice("Back in office " + config.office() + " (" + describeComputers() + ").");
        } catch (SmcpException | TimeoutException | CancelledException | RuntimeException e) {
            log.warn("smcp: joining office {} failed: {}", config.office(), e.getMessage());
            problem = "joining office " + config.office() + " failed: " + e.getMessage();
            state = State.RECONNECTING;
        }
    }

    private void notified(String event, JsonNode data) {
        String computer = data.path("computer").isTextual() ? data.get("computer").asText() : null;
        if (computer == null || state != State.JOINED) return;
        switch (event) {
            case "notify:enter_office" -> {
                synchronized (this) { computers.put(computer, List.of()); }
                int n = fetchTools(computer);
                if (n >= 0) notice("Computer " + computer + " joined office " + config.office() + ": " + n + " tools.");
            }
            case "notify:leave_office" -> {
                boolean known;
                synchronized (this) { known = computers.remove(computer) != null; }
                rebuild();
                pending.values().stream().filter(p -> p.computer().equals(computer)).forEach(p -> p.answer().completeExceptionally(
                        new SmcpException("Computer " + computer + " left the office during the call")));
                if (known) notice("Computer " + computer + " left office " + config.office() + "; its tools are gone.");
            }
            case "notify:update_tool_list", "notify:update_config" -> {
                int n = fetchTools(computer);
                if (n >= 0) notice("Computer " + computer + " changed its tools (" + n + " now).");
            }
            default -> { } // desktop updates: the model asks for the desktop when it needs it
        }
    }

    /** Fetches a Computer's tools; the count, or -1 when it failed (told to the user). */
    private int fetchTools(String computer) {
        SmcpClient c = client;
        try {
            if (c == null) return -1;
            List<JsonNode> ret = c.request("client:get_tools", Json.object().put("agent", config.name())
                    .put("req_id", UUID.randomUUID().toString()).put("computer", computer), REQUEST_TIMEOUT, Cancellation.NONE);
            JsonNode answer = ret.isEmpty() ? Json.object() : ret.get(0);
            Optional<String> error = SmcpErrors.of(answer);
            if (error.isPresent()) throw new SmcpException(error.get());
            synchronized (this) {
                if (!computers.containsKey(computer)) return -1; // it left meanwhile
                rawTools.put(computer, answer.path("tools").deepCopy());
            }
            rebuild();
            return (int) byName.values().stream().filter(t -> t.computer().equals(computer) && t.kind() == SmcpTool.Kind.TOOL).count();
        } catch (SmcpException | TimeoutException | CancelledException | RuntimeException e) {
            notice("Could not get the tools of Computer " + computer + ": " + e.getMessage() + ".");
            return -1;
        }
    }

    /** Names every Computer's tools again (stable: Computers in joining order, tools in their order). */
    private synchronized void rebuild() {
        rawTools.keySet().retainAll(computers.keySet());
        Set<String> keys = new HashSet<>();
        Set<String> taken = new HashSet<>();
        Map<String, SmcpTool> all = new LinkedHashMap<>();
        for (String computer : computers.keySet()) {
            String key = McpNames.distinctKey(computer, keys);
            List<SmcpTool> tools = new ArrayList<>(SmcpTool.fromTools(computer, key, rawTools.get(computer), taken, v03()));
            tools.addAll(SmcpTool.officeRequests(computer, key, taken, v03()));
            computers.put(computer, List.copyOf(tools));
            tools.forEach(t -> all.put(t.name(), t));
        }
        byName = Map.copyOf(all);
    }

    private void lost(String reason, boolean permanent) {
        if (state == State.CLOSED) return;
        pending.values().forEach(p -> p.answer().completeExceptionally(new SmcpException("the connection to the office was lost during the call")));
        if (permanent) {
            fail(reason);
            return;
        }
        boolean wasJoined = state == State.JOINED;
        boolean firstProblem = problem == null;
        state = everJoined ? State.RECONNECTING : State.CONNECTING;
        problem = reason;
        log.warn("smcp: {}", reason);
        if (wasJoined) notice("Lost the connection to office " + config.office() + " (" + reason + "); reconnecting.");
        else if (firstProblem && !everJoined) notice("Office " + config.office() + ": " + reason + ".");
        reconnectLater();
    }

    /** Makes a new connection after the backoff (on the events thread). */
    private void reconnectLater() {
        long base = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS << Math.min(retries++, 5));
        long delay = Math.round(base * (0.5 + ThreadLocalRandom.current().nextDouble()));
        CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS).execute(() -> {
            try {
                events.execute(this::reconnect);
            } catch (RejectedExecutionException closed) {
                // the office was closed meanwhile
            }
        });
    }

    /** A new connection, offering the first version again: the office may have been upgraded (or downgraded) meanwhile. */
    private void reconnect() {
        version = offered();
        negotiated = false;
        connect();
    }

    /** Opens a connection offering {@link #version}, unless the office failed or was closed. */
    private synchronized void connect() {
        if (state == State.CLOSED || state == State.FAILED) return;
        client = SmcpClient.open(config, version, listener);
    }

    /** The server refused the handshake: after a 4008, once per connection, the version it accepts (unless a2cVersion forces one). */
    private void refused(SmcpHandshakeProbe.Refusal refusal) {
        if (state == State.CLOSED) return;
        Optional<String> other = config.a2cVersion() == null && !negotiated ? refusal.accepted() : Optional.empty();
        if (other.isEmpty()) {
            fail(refusal.sentence());
            return;
        }
        negotiated = true;
        log.info("smcp: office server {} refused A2C {} (it speaks {}); connecting with {}", config.url(), version,
                refusal.serverVersion(), other.get());
        version = other.get();
        connect();
    }

    private void fail(String reason) {
        problem = reason;
        state = State.FAILED;
        log.warn("smcp: {}", reason);
        SmcpClient c = client;
        if (c != null) c.close();
        synchronized (this) { computers.clear(); }
        rebuild();
        notice("SMCP office " + config.office() + ": " + reason + ".");
        settled.countDown();
    }

    private synchronized String describeComputers() {
        if (computers.isEmpty()) return "no Computers";
        List<String> parts = new ArrayList<>();
        computers.forEach((c, tools) -> parts.add(c + ": " + tools.stream().filter(t -> t.kind() == SmcpTool.Kind.TOOL).count() + " tools"));
        return String.join(", ", parts);
    }

    private void notice(String text) {
        for (Consumer<String> l : noticeListeners) {
            try {
                l.accept(text);
            } catch (RuntimeException e) {
                log.debug("smcp: a notice listener failed", e);
            }
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }

    @Override
    public void close() {
        SmcpClient c;
        synchronized (this) { // no new connection after this
            state = State.CLOSED;
            c = client;
        }
        if (c != null) c.close();
        events.shutdownNow();
    }
}
