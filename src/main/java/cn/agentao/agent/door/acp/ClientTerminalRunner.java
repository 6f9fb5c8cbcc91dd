package cn.agentao.agent.door.acp;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.util.Cancellation;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs commands in a terminal of the ACP client ({@code terminal/create}), which shows it live to the user.
 * Waits with {@code terminal/wait_for_exit}; on timeout, cancellation or interrupt sends {@code terminal/kill};
 * then reads {@code terminal/output}; and always sends {@code terminal/release}, even when anything before
 * failed or the thread was interrupted.
 */
public final class ClientTerminalRunner implements CommandRunner {
    private static final Logger log = LoggerFactory.getLogger(ClientTerminalRunner.class);
    private static final long EXIT_AFTER_KILL_MS = 5000;

    private final ClientRequests client;
    private final String sessionId;
    private final ChildEnvironment environment;

    public ClientTerminalRunner(ClientRequests client, String sessionId) {
        this(client, sessionId, ChildEnvironment.ofAgent(java.util.List.of()));
    }

    /** {@code environment} says which variables the terminal is asked to set (it cannot be asked to unset any). */
    public ClientTerminalRunner(ClientRequests client, String sessionId, ChildEnvironment environment) {
        this.client = client;
        this.sessionId = sessionId;
        this.environment = environment;
    }

    @Override
    public Result run(Spec spec, Listener listener, Cancellation cancellation)
            throws IOException, InterruptedException {
        ObjectNode create = Json.object().put("sessionId", sessionId).put("command", "bash");
        create.putArray("args").add("-c").add(spec.commandLine());
        ArrayNode env = create.putArray("env");
        environment.forClientTerminal().forEach((k, v) -> env.addObject().put("name", k).put("value", v));
        create.put("cwd", spec.cwd().toString());
        create.put("outputByteLimit", spec.outputLimit());
        JsonNode created = call("terminal/create", create);
        String terminalId = created == null ? "" : created.path("terminalId").asText("");
        if (terminalId.isEmpty()) throw new IOException("terminal/create answered without a terminalId");

        boolean interrupted = false;
        try {
            listener.terminal(terminalId);
            CompletableFuture<JsonNode> exit = new CompletableFuture<>();
            Thread.ofVirtual().name("terminal-wait-" + terminalId).start(() -> {
                try {
                    exit.complete(client.request("terminal/wait_for_exit", ids(terminalId)));
                } catch (Throwable t) {
                    exit.completeExceptionally(t);
                }
            });
            long deadline = System.nanoTime() + spec.timeout().toNanos();
            boolean timedOut = false;
            boolean cancelled = false;
            while (true) {
                try {
                    exit.get(100, TimeUnit.MILLISECONDS);
                    break;
                } catch (TimeoutException e) {
                    if (cancellation.isCancelled()) { cancelled = true; break; }
                    if (System.nanoTime() - deadline > 0) { timedOut = true; break; }
                } catch (ExecutionException e) {
                    log.debug("terminal/wait_for_exit failed: {}", e.getCause().toString());
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                    cancelled = true;
                    break;
                }
            }
            if (timedOut || cancelled) {
                quietly("terminal/kill", terminalId);
                try {
                    exit.get(EXIT_AFTER_KILL_MS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException | ExecutionException e) {
                    log.debug("terminal {} did not report its exit after kill", terminalId);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            JsonNode out = quietly("terminal/output", terminalId);
            String output = out == null ? "" : out.path("output").asText("");
            boolean truncated = out != null && out.path("truncated").asBoolean(false);
            JsonNode status = out != null && out.hasNonNull("exitStatus") ? out.get("exitStatus")
                    : exit.isDone() && !exit.isCompletedExceptionally() ? exit.join() : null;
            Integer exitCode = status != null && status.path("exitCode").isIntegralNumber() ? status.get("exitCode").asInt() : null;
            String signal = status != null && status.path("signal").isTextual() ? status.get("signal").asText() : null;
            if (truncated) output = "… earlier output omitted\n" + output;
            return new Result(exitCode, signal, output, truncated, timedOut, cancelled, terminalId);
        } finally {
            quietly("terminal/release", terminalId);
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private ObjectNode ids(String terminalId) {
        return Json.object().put("sessionId", sessionId).put("terminalId", terminalId);
    }

    private JsonNode call(String method, ObjectNode params) throws IOException, InterruptedException {
        try {
            return client.request(method, params);
        } catch (IOException | InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(method + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Sends a request that must go out whatever the thread's state: a pending interrupt is set aside while it
     * is sent (and restored after), failures are logged.
     */
    private JsonNode quietly(String method, String terminalId) {
        boolean wasInterrupted = Thread.interrupted();
        try {
            return client.request(method, ids(terminalId));
        } catch (Exception e) {
            log.warn("{} for terminal {} failed: {}", method, terminalId, e.toString());
            return null;
        } finally {
            if (wasInterrupted) Thread.currentThread().interrupt();
        }
    }
}
