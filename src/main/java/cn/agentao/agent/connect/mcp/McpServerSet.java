package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The MCP servers of one session. {@link #start} launches every server at once, each on its own thread;
 * {@link #awaitReady} lets session setup wait a short while for them, and servers that take longer join when
 * they are ready (the {@link Listener} hears it, so the session can announce their commands). What the set
 * offers is always what its ready servers offer: tools for the model ({@link #tools()}), prompts as slash
 * commands ({@link #commands()}). {@link #close()} stops them all.
 */
public final class McpServerSet implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(McpServerSet.class);

    /**
     * What the session hears about its servers, on background threads. Reasons are plain words without
     * secrets (no env or header values), ready to show the user.
     */
    public interface Listener {
        Listener NONE = (server, reason) -> { };

        /** A server could not start, or crashed again after its one restart. */
        void serverFailed(String server, String reason);

        /** A server is ready (possibly after {@link #awaitReady} stopped waiting): its tools and prompts are offered. */
        default void serverReady(String server) { }

        /** A ready server's tools or prompts changed (it said so, or it was restarted). */
        default void serverChanged(String server) { }
    }

    /** One server at a glance, e.g. for a {@code /mcp} listing. */
    public record ServerStatus(String name, McpServerDefinition.Origin origin, boolean trusted, String transport,
                               McpServerState state, String failure, int tools, int prompts) {}

    private final List<McpServerConnection> servers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Set<String> keys = new HashSet<>();
    private final Path cwd;
    private final ChildEnvironment children;
    private final McpTimeouts timeouts;
    private final McpServerConnection.Events events;
    private volatile boolean closed;

    private McpServerSet(Path cwd, ChildEnvironment children, McpTimeouts timeouts, McpServerConnection.Events events) {
        this.cwd = cwd;
        this.children = children;
        this.timeouts = timeouts;
        this.events = events;
    }

    /** Starts {@code definitions} (stdio servers in {@code cwd}) with the default timeouts. */
    public static McpServerSet start(List<McpServerDefinition> definitions, Path cwd, Listener listener) {
        return start(definitions, cwd, McpTimeouts.DEFAULT, listener);
    }

    /** As above; stdio servers get {@code children} as their environment, their declared {@code env} on top. */
    public static McpServerSet start(List<McpServerDefinition> definitions, Path cwd, ChildEnvironment children, Listener listener) {
        return start(definitions, cwd, children, McpTimeouts.DEFAULT, listener);
    }

    public static McpServerSet start(List<McpServerDefinition> definitions, Path cwd, McpTimeouts timeouts, Listener listener) {
        return start(definitions, cwd, ChildEnvironment.ofAgent(cwd == null ? List.of() : List.of(cwd)), timeouts, listener);
    }

    public static McpServerSet start(List<McpServerDefinition> definitions, Path cwd, ChildEnvironment children,
                                     McpTimeouts timeouts, Listener listener) {
        Listener safe = guarded(listener == null ? Listener.NONE : listener);
        McpServerConnection.Events events = new McpServerConnection.Events() {
            @Override
            public void ready(McpServerConnection server) { safe.serverReady(server.name()); }

            @Override
            public void failed(McpServerConnection server, String reason) { safe.serverFailed(server.name(), reason); }

            @Override
            public void changed(McpServerConnection server) { safe.serverChanged(server.name()); }
        };
        McpServerSet set = new McpServerSet(cwd, children, timeouts, events);
        set.add(definitions);
        return set;
    }

    /**
     * Starts more servers in this set (e.g. a project's, once the user trusts them); a name already in the set
     * keeps its server. Nothing starts once the set is closed.
     */
    public synchronized void add(List<McpServerDefinition> definitions) {
        if (closed) return;
        Set<String> names = new HashSet<>();
        for (McpServerConnection c : servers) names.add(c.definition().name());
        List<McpServerConnection> connections = new ArrayList<>();
        for (McpServerDefinition d : definitions) {
            if (!names.add(d.name())) continue;
            connections.add(new McpServerConnection(d, McpNames.serverKey(d.name(), keys), cwd, children, timeouts, events));
        }
        servers.addAll(connections);
        for (McpServerConnection c : connections) {
            Thread.ofPlatform().daemon().name("mcp-start-" + c.name()).start(c::start);
        }
    }

    private static Listener guarded(Listener l) {
        return new Listener() {
            @Override
            public void serverFailed(String server, String reason) {
                try {
                    l.serverFailed(server, reason);
                } catch (RuntimeException e) {
                    log.warn("MCP listener failed", e);
                }
            }

            @Override
            public void serverReady(String server) {
                try {
                    l.serverReady(server);
                } catch (RuntimeException e) {
                    log.warn("MCP listener failed", e);
                }
            }

            @Override
            public void serverChanged(String server) {
                try {
                    l.serverChanged(server);
                } catch (RuntimeException e) {
                    log.warn("MCP listener failed", e);
                }
            }
        };
    }

    /**
     * Waits at most {@code max} for every server to be ready or failed; true if all are. Servers still starting
     * go on starting. Interrupting returns false at once.
     */
    public boolean awaitReady(Duration max) {
        CompletableFuture<?>[] all = servers.stream().map(McpServerConnection::settled).toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(all).get(max.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // ---------------------------------------------------------------- tools

    /** The tools of the ready servers, each under its namespaced name. */
    public List<McpTool> tools() {
        List<McpTool> out = new ArrayList<>();
        for (McpServerConnection s : servers) out.addAll(s.tools());
        return out;
    }

    /** The same tools as the model sees them. */
    public List<ToolSpecification> toolSpecifications() {
        return tools().stream().map(McpTool::specification).toList();
    }

    public Optional<McpTool> tool(String name) {
        for (McpServerConnection s : servers) {
            for (McpTool t : s.tools()) if (t.name().equals(name)) return Optional.of(t);
        }
        return Optional.empty();
    }

    /**
     * Runs a tool by its namespaced name. Never fails: an unknown tool, bad arguments, a server that is down or
     * a call that errs or times out all become an error result. Throws only when {@code cancel} fires (the
     * call is then abandoned and the server told so).
     */
    public McpToolResult callTool(String name, JsonNode arguments, Cancellation cancel) throws CancelledException {
        for (McpServerConnection s : servers) {
            for (McpTool t : s.tools()) {
                if (!t.name().equals(name)) continue;
                if (arguments != null && !arguments.isNull() && !arguments.isObject()) {
                    return McpToolResult.error("The arguments of " + name + " must be a JSON object.");
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> args = arguments == null || arguments.isNull() ? Map.of() : Json.mapper().convertValue(arguments, Map.class);
                return s.callTool(t, args, cancel);
            }
        }
        return McpToolResult.error("There is no MCP tool named " + name + ".");
    }

    // ---------------------------------------------------------------- prompts

    /** The prompts of the ready servers, as slash commands {@code mcp.<server>.<prompt>}. */
    public List<AvailableCommand> commands() {
        List<AvailableCommand> out = new ArrayList<>();
        for (McpServerConnection s : servers) for (McpPromptCommand p : s.prompts()) out.add(p.toAvailableCommand());
        return out;
    }

    public boolean hasCommand(String name) {
        return findCommand(name) != null;
    }

    /**
     * The text to send to the model for {@code /name arguments}. The argument text becomes the prompt's
     * arguments as {@link McpPromptArguments} describes. Throws with a plain-words message when the command is
     * unknown, an argument is missing or the server fails.
     */
    public String getPrompt(String commandName, String arguments, Cancellation cancel) throws McpException, CancelledException {
        PromptOf found = findCommand(commandName);
        if (found == null) throw new McpException("There is no MCP prompt /" + commandName + ".");
        return found.server().getPrompt(found.command(), arguments, cancel);
    }

    private record PromptOf(McpServerConnection server, McpPromptCommand command) {}

    private PromptOf findCommand(String name) {
        for (McpServerConnection s : servers) {
            for (McpPromptCommand p : s.prompts()) if (p.name().equals(name)) return new PromptOf(s, p);
        }
        return null;
    }

    // ---------------------------------------------------------------- status and lifecycle

    public List<ServerStatus> status() {
        List<ServerStatus> out = new ArrayList<>();
        for (McpServerConnection s : servers) {
            McpServerDefinition d = s.definition();
            out.add(new ServerStatus(s.name(), d.origin(), d.trusted(), d.config().type(), s.state(), s.failure(),
                    s.tools().size(), s.prompts().size()));
        }
        return out;
    }

    /** The process id of a running stdio server, or -1. */
    long pid(String server) {
        for (McpServerConnection s : servers) if (s.name().equals(server)) return s.pid();
        return -1;
    }

    /** Stops every server, all at once; returns when their processes (and descendants) are gone. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        List<Thread> stopping = new ArrayList<>();
        for (McpServerConnection s : servers) stopping.add(Thread.ofPlatform().daemon().name("mcp-stop-" + s.name()).start(s::close));
        for (Thread t : stopping) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
