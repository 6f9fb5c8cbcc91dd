package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.util.BuildVersion;
import cn.agentao.agent.net.Network;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientSseClientTransport;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.customizer.McpSyncHttpClientRequestCustomizer;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One MCP server of a session, over the official MCP Java SDK's client: connects (stdio, streamable HTTP or
 * SSE), lists its tools and prompts, runs calls with timeouts and cancellation, restarts a crashed stdio
 * server once on its next use, and stops it.
 */
final class McpServerConnection {
    private static final Logger log = LoggerFactory.getLogger(McpServerConnection.class);
    private static final McpJsonMapper MAPPER = new JacksonMcpJsonMapper(Json.mapper());
    /** The SDK's own per-request timeout; each of our waits has its own, shorter one. */
    private static final Duration SDK_REQUEST_TIMEOUT = Duration.ofDays(1);

    /** What the owning set hears about this server. */
    interface Events {
        void ready(McpServerConnection server);

        void failed(McpServerConnection server, String reason);

        /** Its tools or prompts changed (a list_changed notification, or a restart). */
        void changed(McpServerConnection server);
    }

    /** A connected client; {@code process} is null for HTTP and SSE servers. */
    private record Live(McpAsyncClient client, RequestTrackingTransport transport, StdioProcessTransport process) {
        Cancellation exitSignal() {
            return process == null ? Cancellation.NONE : process.exitSignal();
        }

        boolean crashed() {
            return process != null && !process.isAlive();
        }

        /**
         * Whether the stdio server ends within {@code grace}: a request that failed on a server that is exiting
         * (its stdin already closed: "Broken pipe") is explained by how the server ended, not by the write.
         */
        boolean endsWithin(Duration grace) {
            return process != null && process.awaitExit(grace);
        }
    }

    /** How long a failed request waits to see whether the stdio server is exiting (see {@link Live#endsWithin}). */
    private static final Duration EXIT_GRACE = Duration.ofSeconds(2);

    private final McpServerDefinition definition;
    private final String key;
    private final Path cwd;
    private final ChildEnvironment children;
    private final McpTimeouts timeouts;
    private final Events events;
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    private final ReentrantLock restartLock = new ReentrantLock();
    private volatile McpServerState state = McpServerState.STARTING;
    private volatile String failure;
    private volatile Live live;
    /** The client being connected (first start or restart), so that closing stops it too. */
    private volatile Live connecting;
    private volatile List<McpTool> tools = List.of();
    private volatile List<McpPromptCommand> prompts = List.of();
    private boolean restarted;

    McpServerConnection(McpServerDefinition definition, String key, Path cwd, ChildEnvironment children,
                        McpTimeouts timeouts, Events events) {
        this.definition = definition;
        this.key = key;
        this.cwd = cwd;
        this.children = children;
        this.timeouts = timeouts;
        this.events = events;
    }

    String name() { return definition.name(); }

    McpServerDefinition definition() { return definition; }

    McpServerState state() { return state; }

    /** Why it failed (plain words, no secrets), or null. */
    String failure() { return failure; }

    List<McpTool> tools() { return state == McpServerState.READY ? tools : List.of(); }

    List<McpPromptCommand> prompts() { return state == McpServerState.READY ? prompts : List.of(); }

    /** Completes when the first start has succeeded or failed. */
    CompletableFuture<Void> settled() { return settled; }

    /** The stdio server's process id, or -1 (HTTP, not running). */
    long pid() {
        Live l = live;
        return l == null || l.process() == null ? -1 : l.process().pid();
    }

    // ---------------------------------------------------------------- lifecycle

    /** Connects; blocks until ready or failed. Called once, on a thread of its own. */
    void start() {
        try {
            Live l = connect();
            if (!install(l)) return;
            log.info("MCP server \"{}\" ready: {} tools, {} prompts", name(), tools.size(), prompts.size());
            events.ready(this); // told before it counts as settled: awaitReady then implies the listener heard it
            settled.complete(null);
        } catch (McpException | CancelledException | RuntimeException e) {
            fail("could not start: " + reason(e));
        }
    }

    /** Makes {@code l} the live client unless the server was closed meanwhile (then stops it). */
    private boolean install(Live l) {
        synchronized (this) {
            if (state != McpServerState.STOPPED) {
                live = l;
                state = McpServerState.READY;
                return true;
            }
        }
        stop(l);
        return false;
    }

    private void fail(String reason) {
        String clean = McpFailureReasons.clean(reason, definition.secretValues());
        synchronized (this) {
            if (state == McpServerState.STOPPED) return;
            state = McpServerState.FAILED;
            failure = clean;
        }
        Live l = live;
        live = null;
        if (l != null) stop(l);
        log.warn("MCP server \"{}\" failed: {}", name(), clean);
        events.failed(this, clean);
        settled.complete(null);
    }

    /** Stops the server (stdio: the process with its descendants), also one still starting. Idempotent. */
    void close() {
        Live l;
        synchronized (this) {
            state = McpServerState.STOPPED;
            l = live;
            live = null;
        }
        settled.complete(null);
        if (l != null) stop(l);
        Live starting = connecting;
        if (starting != null) stop(starting);
    }

    private void stop(Live l) {
        if (l.process() != null) {
            l.process().terminate();
            l.client().close();
            return;
        }
        try {
            l.client().closeGracefully().block(timeouts.shutdown());
        } catch (RuntimeException e) {
            log.debug("MCP server \"{}\": closing the connection failed: {}", name(), e.toString());
            l.client().close();
        }
    }

    private Live connect() throws McpException, CancelledException {
        McpServerConfig c = definition.config();
        StdioProcessTransport process = null;
        McpClientTransport base;
        refuseProjectCredentials();
        if (c.isStdio()) {
            process = new StdioProcessTransport(name(), StdioProcessTransport.commandLine(c.command(), c.args()), environment(),
                    secrets(), cwd,
                    MAPPER, timeouts.shutdown());
            process.start();
            base = process;
        } else {
            base = httpTransport(c);
        }
        RequestTrackingTransport transport = new RequestTrackingTransport(base);
        McpAsyncClient client = McpClient.async(transport)
                .clientInfo(McpSchema.Implementation.builder("agent", BuildVersion.current()).build())
                .requestTimeout(SDK_REQUEST_TIMEOUT)
                .initializationTimeout(timeouts.startup())
                .jsonSchemaValidator(new DefaultJsonSchemaValidator(Json.mapper()))
                .toolsChangeConsumer(list -> Mono.fromRunnable(() -> toolsChanged(list)))
                .promptsChangeConsumer(list -> Mono.fromRunnable(() -> promptsChanged(list)))
                .build();
        Live l = new Live(client, transport, process);
        connecting = l;
        if (state == McpServerState.STOPPED) {
            stop(l);
            throw new McpException("it was stopped");
        }
        try {
            McpSchema.InitializeResult init = await(l, client.initialize(), McpSchema.METHOD_INITIALIZE,
                    timeouts.startup(), Cancellation.NONE, "starting");
            McpSchema.ServerCapabilities caps = init.capabilities();
            List<McpTool> t = caps != null && caps.tools() != null
                    ? namedTools(await(l, client.listTools(), McpSchema.METHOD_TOOLS_LIST, timeouts.request(), Cancellation.NONE, "listing its tools").tools())
                    : List.of();
            List<McpPromptCommand> p = caps != null && caps.prompts() != null
                    ? namedPrompts(await(l, client.listPrompts(), McpSchema.METHOD_PROMPT_LIST, timeouts.request(), Cancellation.NONE, "listing its prompts").prompts())
                    : List.of();
            tools = t;
            prompts = p;
            return l;
        } catch (McpException | CancelledException | RuntimeException e) {
            stop(l);
            throw e;
        } finally {
            connecting = null;
        }
    }

    /**
     * The server's whole environment: the session's children's environment with the server's own {@code env} on
     * top. Entries from the editor or the user's mcp.json are the user passing values by name; a project file's
     * entries lose their credentials.
     */
    private Map<String, String> environment() {
        McpServerConfig c = definition.config();
        Map<String, String> declared = new LinkedHashMap<>();
        if (c.env() != null) c.env().forEach(nv -> declared.put(nv.name(), nv.value()));
        boolean fromProject = definition.origin() == McpServerDefinition.Origin.PROJECT_CONFIG;
        return children.variables(fromProject ? children.withoutCredentials(declared) : declared);
    }

    /** What is masked in the server's stderr: its declared values and the session's credentials. */
    private List<String> secrets() {
        List<String> all = new ArrayList<>(definition.secretValues());
        all.addAll(children.credentials().values());
        return all;
    }

    /**
     * A project file may not hand a credential (say {@code ${OPENAI_API_KEY}}) to the program it names or to the
     * URL it names: such a server is not started.
     */
    private void refuseProjectCredentials() throws McpException {
        if (definition.origin() != McpServerDefinition.Origin.PROJECT_CONFIG) return;
        McpServerConfig c = definition.config();
        List<String> exposed = new ArrayList<>();
        if (c.isStdio()) exposed.addAll(StdioProcessTransport.commandLine(c.command(), c.args()));
        if (c.url() != null) exposed.add(c.url());
        if (c.headers() != null) c.headers().forEach(h -> exposed.add(h.value()));
        if (exposed.stream().anyMatch(children::holdsSecret)) {
            throw new McpException("the project's configuration would hand it a credential; "
                    + "only your own configuration may pass one to a server");
        }
    }

    private McpClientTransport httpTransport(McpServerConfig c) {
        URI uri = URI.create(c.url());
        String base = uri.getScheme() + "://" + uri.getRawAuthority();
        String endpoint = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() != null ? "?" + uri.getRawQuery() : "");
        Network network = Network.get();
        McpSyncHttpClientRequestCustomizer headers = (builder, method, target, body, context) -> {
            network.authorize(builder, target);
            if (c.headers() == null) return;
            for (McpServerConfig.NameValue h : c.headers()) {
                try {
                    builder.setHeader(h.name(), h.value());
                } catch (IllegalArgumentException e) {
                    log.warn("MCP server \"{}\": header {} cannot be sent by this HTTP client; left out", name(), h.name());
                }
            }
        };
        if ("sse".equals(c.type())) return sseTransport(base, endpoint, headers, network);
        return HttpClientStreamableHttpTransport.builder(base).endpoint(endpoint).jsonMapper(MAPPER)
                .customizeClient(client -> network.configure(client, true))
                .addHttpRequestCustomizer(headers).connectTimeout(timeouts.startup()).build();
    }

    /** The HTTP+SSE transport of MCP 2024-11-05, deprecated by the spec and the SDK, still offered by ACP. */
    @SuppressWarnings("deprecation")
    private McpClientTransport sseTransport(String base, String endpoint, McpSyncHttpClientRequestCustomizer headers,
                                           Network network) {
        return HttpClientSseClientTransport.builder(base).sseEndpoint(endpoint).jsonMapper(MAPPER)
                .customizeClient(client -> network.configure(client, true))
                .addHttpRequestCustomizer(headers).connectTimeout(timeouts.startup()).build();
    }

    private List<McpTool> namedTools(List<McpSchema.Tool> listed) {
        Set<String> taken = new HashSet<>();
        List<McpTool> out = new ArrayList<>();
        for (McpSchema.Tool t : listed == null ? List.<McpSchema.Tool>of() : listed) {
            out.add(McpTool.of(McpNames.toolName(key, t.name(), taken), name(), t, definition.trusted()));
        }
        return List.copyOf(out);
    }

    private List<McpPromptCommand> namedPrompts(List<McpSchema.Prompt> listed) {
        Set<String> taken = new HashSet<>();
        List<McpPromptCommand> out = new ArrayList<>();
        for (McpSchema.Prompt p : listed == null ? List.<McpSchema.Prompt>of() : listed) {
            out.add(new McpPromptCommand(McpNames.commandName(key, p.name(), taken), name(), p));
        }
        return List.copyOf(out);
    }

    private void toolsChanged(List<McpSchema.Tool> listed) {
        tools = namedTools(listed);
        if (state == McpServerState.READY) events.changed(this);
    }

    private void promptsChanged(List<McpSchema.Prompt> listed) {
        prompts = namedPrompts(listed);
        if (state == McpServerState.READY) events.changed(this);
    }

    // ---------------------------------------------------------------- use

    /** Calls one of its tools; failures become an error result, only cancellation throws. */
    McpToolResult callTool(McpTool tool, Map<String, Object> arguments, Cancellation cancel) throws CancelledException {
        Live l;
        try {
            l = usable();
        } catch (McpException e) {
            return McpToolResult.error("MCP server \"" + name() + "\" is not available: " + e.getMessage());
        }
        try {
            McpSchema.CallToolResult r = await(l, l.client().callTool(McpSchema.CallToolRequest.builder(tool.serverToolName()).arguments(arguments).build()),
                    McpSchema.METHOD_TOOLS_CALL, timeouts.toolCall(), cancel, "the tool call");
            return r == null ? McpToolResult.error("MCP tool " + tool.name() + " returned nothing") : McpToolResult.of(r);
        } catch (McpException e) {
            return McpToolResult.error("MCP tool " + tool.name() + " failed: "
                    + McpFailureReasons.clean(e.getMessage(), definition.secretValues()));
        }
    }

    /** Gets a prompt's text for the model, the free text mapped to its arguments. */
    String getPrompt(McpPromptCommand command, String argumentText, Cancellation cancel) throws McpException, CancelledException {
        McpPromptArguments.Parsed args = McpPromptArguments.parse(command.name(), command.arguments(), argumentText);
        Live l = usable();
        try {
            McpSchema.GetPromptResult r = await(l, l.client().getPrompt(McpSchema.GetPromptRequest.builder(command.prompt().name()).arguments(args.arguments()).build()),
                    McpSchema.METHOD_PROMPT_GET, timeouts.request(), cancel, "getting the prompt");
            if (r == null) throw new McpException("the server returned no prompt");
            return McpPromptCommand.text(r, args.extraText());
        } catch (McpException e) {
            throw new McpException("MCP prompt /" + command.name() + " failed: "
                    + McpFailureReasons.clean(e.getMessage(), definition.secretValues()));
        }
    }

    /**
     * The live client, restarting a crashed stdio server once. A second crash fails the server for the rest of
     * the session (reported like a failed start).
     */
    private Live usable() throws McpException {
        Live l = live;
        if (state == McpServerState.READY && l != null && !l.crashed()) return l;
        switch (state) {
            case STARTING -> throw new McpException("it is still starting");
            case FAILED -> throw new McpException(failure);
            case STOPPED -> throw new McpException("it was stopped");
            case READY -> { }
        }
        restartLock.lock();
        try {
            Live current = live;
            if (current != l) {
                if (state == McpServerState.READY && current != null && !current.crashed()) return current;
                throw new McpException(failure != null ? failure : "it is not running");
            }
            String how = l.process().exitDescription();
            stop(l);
            if (restarted) {
                fail("it stopped again after a restart: " + how);
                throw new McpException(failure);
            }
            restarted = true;
            log.warn("MCP server \"{}\" {}; restarting it", name(), how);
            Live fresh;
            try {
                fresh = connect();
            } catch (McpException | CancelledException | RuntimeException e) {
                fail("it stopped (" + how + ") and could not be restarted: " + reason(e));
                throw new McpException(failure);
            }
            if (!install(fresh)) throw new McpException("it was stopped");
            events.changed(this);
            return fresh;
        } finally {
            restartLock.unlock();
        }
    }

    /**
     * Waits for one request: its answer, or an exception when it fails, the server's process ends, the time is
     * up or the user cancels. An abandoned request is unsubscribed and the server told with
     * {@code notifications/cancelled}.
     */
    private <T> T await(Live l, Mono<T> request, String method, Duration timeout, Cancellation cancel, String what)
            throws McpException, CancelledException {
        RequestTrackingTransport.RequestId id = new RequestTrackingTransport.RequestId(method);
        CompletableFuture<T> result = new CompletableFuture<>();
        CompletableFuture<Void> interrupted = new CompletableFuture<>();
        Disposable subscription = request.contextWrite(RequestTrackingTransport.capturing(id))
                .subscribe(result::complete, result::completeExceptionally, () -> result.complete(null));
        Cancellation.Registration onCancel = cancel.onCancel(() -> interrupted.complete(null));
        Cancellation.Registration onExit = l.exitSignal().onCancel(() -> interrupted.complete(null));
        try {
            CompletableFuture.anyOf(result, interrupted).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // looked at below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon(l, subscription, id, "interrupted");
            throw new CancelledException();
        } finally {
            onCancel.close();
            onExit.close();
        }
        if (result.isDone() && !result.isCompletedExceptionally()) return result.join();
        if (cancel.isCancelled()) {
            abandon(l, subscription, id, "cancelled by the user");
            throw new CancelledException();
        }
        if (l.crashed() || (result.isCompletedExceptionally() && l.endsWithin(EXIT_GRACE))) {
            subscription.dispose();
            throw new McpException("the server " + l.process().exitDescription());
        }
        if (result.isCompletedExceptionally()) {
            try {
                result.join();
            } catch (RuntimeException e) {
                throw new McpException(McpFailureReasons.describe(e.getCause() != null ? e.getCause() : e));
            }
        }
        abandon(l, subscription, id, "timed out");
        throw new McpException(what + " got no answer within " + timeout.toSeconds() + " s");
    }

    private static void abandon(Live l, Disposable subscription, RequestTrackingTransport.RequestId id, String reason) {
        subscription.dispose();
        l.transport().sendCancelled(id, reason);
    }

    private String reason(Throwable e) {
        String r = McpFailureReasons.describe(e);
        McpServerConfig c = definition.config();
        if (c.isStdio()) return r;
        String via;
        try {
            via = Network.get().via(URI.create(c.url()));
        } catch (IllegalArgumentException bad) {
            via = "";
        }
        return r + " (" + McpFailureReasons.address(c.url()) + via + ")";
    }
}
