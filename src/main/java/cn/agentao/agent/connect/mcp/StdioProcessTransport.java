package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stdio transport of one MCP server process: newline-delimited JSON-RPC on its stdin/stdout, and every
 * line it writes to stderr sent to the log (never to our stdout, which carries the ACP stream), with the
 * values of its configured environment masked.
 *
 * <p>Used instead of the SDK's {@code StdioClientTransport}, which keeps its {@link Process} private: we need
 * the process to kill it with its descendants, to register it for the shutdown hook, and to know at once
 * when it dies (a pending request then fails right away instead of waiting for its timeout).
 */
final class StdioProcessTransport implements McpClientTransport {
    private static final Logger log = LoggerFactory.getLogger(StdioProcessTransport.class);
    /** Server stderr goes to this logger, one log line per stderr line, prefixed with the server's name. */
    private static final Logger serverLog = LoggerFactory.getLogger("cn.agentao.agent.connect.mcp.server");
    private static final int MAX_MESSAGE_CHARS = 16 * 1024 * 1024;
    private static final int STDERR_LINES_KEPT = 10;

    private final String server;
    private final List<String> command;
    private final Map<String, String> environment;
    private final List<String> secrets;
    private final Path cwd;
    private final McpJsonMapper mapper;
    private final Duration shutdownGrace;
    private final CancellationSource exited = new CancellationSource();
    private final Deque<String> recentStderr = new ArrayDeque<>();
    private final Object writeLock = new Object();
    private volatile Process process;
    private volatile boolean closing;

    /**
     * {@code environment} is the process's whole environment; {@code secrets} are masked in the server's stderr
     * before it is logged or kept for a failure reason.
     */
    StdioProcessTransport(String server, List<String> command, Map<String, String> environment, List<String> secrets, Path cwd,
                          McpJsonMapper mapper, Duration shutdownGrace) {
        this.server = server;
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.secrets = List.copyOf(secrets);
        this.cwd = cwd;
        this.mapper = mapper;
        this.shutdownGrace = shutdownGrace;
    }

    /** Starts the process; its stdout is read once the client {@linkplain #connect connects}. */
    void start() throws McpException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().clear();
        pb.environment().putAll(environment);
        if (cwd != null && Files.isDirectory(cwd)) pb.directory(cwd.toFile());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new McpException("cannot run \"" + command.get(0) + "\": " + startFailure(e));
        }
        process = p;
        ChildProcesses.register(p.toHandle());
        log.debug("MCP server \"{}\" started as process {}", server, p.pid());
        Thread.ofVirtual().name("mcp-" + server + "-stderr").start(this::pumpStderr);
        p.onExit().thenRun(this::processEnded);
    }

    /**
     * "no such file or directory" rather than the JDK's "Cannot run program ...: error=2, No such file or
     * directory" (or, in newer JDKs, "exec failed, error: 2 (No such file or directory)").
     */
    private static String startFailure(IOException e) {
        String m = (e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage() : String.valueOf(e.getMessage())).strip();
        Matcher inParens = Pattern.compile("error[:=] ?\\d+ \\((.+)\\)$").matcher(m);
        Matcher afterComma = Pattern.compile("error=\\d+, (.+)$").matcher(m);
        String reason = inParens.find() ? inParens.group(1) : afterComma.find() ? afterComma.group(1) : m;
        return reason.isEmpty() ? reason : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
    }

    /** Fires once the process has ended or closed its output, whether it crashed or we stopped it. */
    Cancellation exitSignal() { return exited; }

    boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive() && !exited.isCancelled();
    }

    long pid() {
        Process p = process;
        return p == null ? -1 : p.pid();
    }

    /** Waits up to {@code timeout} for the process to end; true when it has (false when interrupted). */
    boolean awaitExit(java.time.Duration timeout) {
        Process p = process;
        if (p == null) return false;
        try {
            return p.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** How the process ended, for a failure reason: exit code and its last stderr line. */
    String exitDescription() {
        Process p = process;
        try {
            // a server whose output just closed is usually exiting: give it a moment to be reaped, and its last
            // stderr line a moment to be read, so the reason says how it ended
            if (p != null && p.isAlive()) p.waitFor(500, java.util.concurrent.TimeUnit.MILLISECONDS);
            if (p != null && !p.isAlive()) stderrDrained.await(500, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String how = p == null ? "did not start" : p.isAlive() ? "closed its output" : "exited with code " + p.exitValue();
        String last;
        synchronized (recentStderr) {
            last = recentStderr.peekLast();
        }
        return last == null ? how : how + " (" + last + ")";
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return Mono.fromRunnable(() -> {
            Process p = process;
            if (p == null) throw new IllegalStateException("MCP server process not started");
            Thread.ofVirtual().name("mcp-" + server + "-stdout").start(() -> pumpStdout(p, handler));
        });
    }

    private void pumpStdout(Process p, Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = readLine(in)) != null) {
                if (line.isBlank()) continue;
                McpSchema.JSONRPCMessage message;
                try {
                    message = McpSchema.deserializeJsonRpcMessage(mapper, line);
                } catch (IOException | IllegalArgumentException e) {
                    log.warn("MCP server \"{}\" wrote a line that is not JSON-RPC on stdout; ignored", server);
                    continue;
                }
                handler.apply(Mono.just(message)).subscribe(m -> {}, e -> log.debug("MCP server \"{}\": message handling failed", server, e));
            }
        } catch (IOException e) {
            if (!closing) log.debug("MCP server \"{}\": reading its output failed: {}", server, e.toString());
        }
        processEnded();
    }

    /** One line, or null at the end; a line longer than the limit ends the connection. */
    private static String readLine(BufferedReader in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') return sb.toString();
            if (c != '\r') sb.append((char) c);
            if (sb.length() > MAX_MESSAGE_CHARS) throw new IOException("message longer than " + MAX_MESSAGE_CHARS + " characters");
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    /** Counted down when the server's stderr reaches its end (all of it is in {@link #recentStderr}). */
    private final java.util.concurrent.CountDownLatch stderrDrained = new java.util.concurrent.CountDownLatch(1);

    private void pumpStderr() {
        Process p = process;
        try (BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = err.readLine()) != null) {
                if (line.isBlank()) continue;
                String shown = McpFailureReasons.mask(line.strip(), secrets);
                serverLog.info("[{}] {}", server, shown);
                synchronized (recentStderr) {
                    recentStderr.addLast(shown);
                    if (recentStderr.size() > STDERR_LINES_KEPT) recentStderr.removeFirst();
                }
            }
        } catch (IOException e) {
            // the process is gone
        } finally {
            stderrDrained.countDown();
        }
    }

    private void processEnded() {
        if (exited.isCancelled()) return;
        Process p = process;
        if (p != null && !p.isAlive()) ChildProcesses.unregister(p.toHandle());
        if (!closing) log.warn("MCP server \"{}\" {}", server, exitDescription());
        exited.cancel();
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return Mono.fromRunnable(() -> {
            Process p = process;
            if (p == null || exited.isCancelled()) throw new IllegalStateException("MCP server \"" + server + "\" is not running");
            try {
                byte[] bytes = (mapper.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
                OutputStream out = p.getOutputStream();
                synchronized (writeLock) {
                    out.write(bytes);
                    out.flush();
                }
            } catch (IOException e) {
                throw new IllegalStateException("MCP server \"" + server + "\" is not reading its input", e);
            }
        });
    }

    /** Kills the process with its descendants (SIGTERM, then SIGKILL after the grace period). Idempotent. */
    void terminate() {
        closing = true;
        Process p = process;
        if (p == null) return;
        ChildProcesses.killTree(p.toHandle(), shutdownGrace);
        try {
            p.getOutputStream().close();
        } catch (IOException ignored) {
            // already closed
        }
        exited.cancel();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.<Void>fromRunnable(this::terminate).subscribeOn(Schedulers.boundedElastic());
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return mapper.convertValue(data, typeRef);
    }

    /** The command line for logs: the program only (arguments may hold secrets). */
    @Override
    public String toString() {
        return "stdio:" + command.get(0);
    }

    static List<String> commandLine(String command, List<String> args) {
        List<String> all = new ArrayList<>();
        all.add(command);
        if (args != null) all.addAll(args);
        return all;
    }
}
