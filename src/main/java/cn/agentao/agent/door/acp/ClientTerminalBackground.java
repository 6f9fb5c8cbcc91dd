package cn.agentao.agent.door.acp;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.sandbox.SandboxLaunch;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A background command shown in a terminal of the ACP client ({@code terminal/create}): the client starts it and
 * streams its output to the user, while it keeps the sandbox, the environment and the life of one the agent starts
 * itself ({@code docs/tools.md}).
 *
 * <ul>
 *   <li>The terminal runs {@code env -i NAME=value… bash -c WRAPPER …} and then the very argv the agent would run
 *       (the bubblewrap line of its sandbox, or {@code bash -c} outside it): the environment is the agent's own
 *       child environment, given whole, so nothing of the client's environment reaches the command (terminal/create
 *       can only add variables).</li>
 *   <li>The agent keeps a FIFO of a private directory open, read and write; the wrapper opens it for reading and
 *       starts the command in a process group of its own ({@code setsid}). A guard of the wrapper reads the FIFO:
 *       end-of-file comes once no one holds it for writing, that is when the agent closes it (the command ended, or
 *       {@code shell_kill}) or when the agent's process ends, however it ends, {@code kill -9} included. The guard then
 *       sends SIGTERM to the group, SIGKILL a second later, and removes the directory. The client being the wrapper's
 *       parent changes nothing: the command does not outlive the agent.</li>
 *   <li>The wrapper writes the group's process id to the directory (shown as the command's pid), and keeps a
 *       sandbox's own report (bubblewrap's status on stderr) in a file there, out of the terminal.</li>
 * </ul>
 * Output is read with {@code terminal/output} (the whole retained output each time; what is new is what follows what
 * was read); the end with {@code terminal/wait_for_exit}, after which the terminal is released.
 */
final class ClientTerminalBackground implements CommandRunner.Background {
    private static final Logger log = LoggerFactory.getLogger(ClientTerminalBackground.class);
    /** What the client is asked to keep of the output (it drops the oldest past it). */
    static final long OUTPUT_BYTE_LIMIT = 1024 * 1024;
    /** How long the client's terminal has to start the wrapper before the start fails. */
    private static final long START_MS = 30_000;
    /** How long a request that must not hang (output, kill, release) may take. */
    private static final long REQUEST_MS = 5_000;
    /** How long {@link #kill()} waits for the wrapper's guard to end the group (it takes a second). */
    private static final long GUARD_MS = 3_000;
    /** How long {@link #kill()} waits for the terminal to report the end. */
    private static final long KILL_MS = 10_000;
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Path ENV = firstExecutable("env");
    private static final Path SETSID = firstExecutable("setsid");
    private static final Path MKFIFO = firstExecutable("mkfifo");
    private static final Path BASH = Files.isExecutable(Path.of("/bin/bash")) ? Path.of("/bin/bash") : firstExecutable("bash");

    /**
     * Run as {@code bash -c WRAPPER agent-terminal DIR STATUS setsid argv…}: opens the agent's FIFO ({@code DIR/alive}),
     * starts {@code argv} in a new session (stderr to {@code STATUS} when it is not empty), writes its pid to
     * {@code DIR/pid}, and leaves a guard that ends the group once the FIFO reads end-of-file. A signal to the wrapper
     * (the client's own kill) is passed to the group. Exits with the command's status ({@code 128 + n} for signal n).
     */
    static final String WRAPPER = """
            dir=$1 status=$2; shift 2
            exec 3<"$dir/alive" </dev/null
            if [ -n "$status" ]; then "$@" 2>"$status" 3<&- & else "$@" 3<&- & fi
            pid=$!
            echo "$pid" >"$dir/pid.new" && mv -f -- "$dir/pid.new" "$dir/pid"
            ( trap '' TERM HUP INT; read -r _ <&3; kill -TERM -- "-$pid"; sleep 1; kill -KILL -- "-$pid"; rm -rf -- "$dir" ) >/dev/null 2>&1 &
            exec 3<&-
            trap 'kill -TERM -- "-$pid" 2>/dev/null' TERM HUP INT
            while :; do wait "$pid"; code=$?; kill -0 "$pid" 2>/dev/null || break; done
            exit "$code"
            """;

    private final ClientRequests client;
    private final String sessionId;
    private final String terminalId;
    private final Path dir;
    private final FileChannel alive;
    private final long pid;
    private final SandboxLaunch launch;
    private final Path status;
    private final int unreadLimit;
    private final StringBuilder unread = new StringBuilder(); // guarded by this
    private String seen = ""; // guarded by this: the client's retained output at the last read
    private long dropped; // guarded by this
    private boolean ended; // guarded by this: it exited, or was killed and its group is gone
    private boolean released; // guarded by this: the terminal was released (its output can no longer be read)
    private Integer exitCode; // guarded by this
    private String sandboxFailure; // guarded by this
    private volatile boolean killed;
    private final java.util.concurrent.atomic.AtomicBoolean ending = new java.util.concurrent.atomic.AtomicBoolean();

    private ClientTerminalBackground(ClientRequests client, String sessionId, String terminalId, Path dir, FileChannel alive,
                                     long pid, SandboxLaunch launch, Path status, int unreadLimit) {
        this.client = client;
        this.sessionId = sessionId;
        this.terminalId = terminalId;
        this.dir = dir;
        this.alive = alive;
        this.pid = pid;
        this.launch = launch;
        this.status = status;
        this.unreadLimit = unreadLimit;
        Thread.ofVirtual().name("terminal-background-" + terminalId).start(this::follow);
    }

    /** Whether this machine has what the wrapper needs ({@code env}, {@code setsid}, {@code mkfifo}, bash): Linux. */
    static boolean available() {
        return ENV != null && SETSID != null && MKFIFO != null && BASH != null;
    }

    /**
     * Asks the client to start {@code spec} in a terminal, as described above, and returns once the wrapper runs.
     *
     * @throws IOException when it could not be started (the terminal is released and nothing is left running)
     */
    static ClientTerminalBackground start(ClientRequests client, String sessionId, ChildEnvironment environment,
                                          CommandRunner.Spec spec) throws IOException, InterruptedException {
        if (!available()) throw new IOException("client terminals cannot be tied to the agent's life here");
        Path dir = Files.createTempDirectory("agent-terminal-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        FileChannel alive = null;
        SandboxLaunch launch = null;
        String terminalId = null;
        try {
            Path fifo = dir.resolve("alive");
            Process mk = new ProcessBuilder(MKFIFO.toString(), "-m", "600", fifo.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!mk.waitFor(10, TimeUnit.SECONDS) || mk.exitValue() != 0 || !Files.exists(fifo)) {
                mk.destroyForcibly();
                throw new IOException("cannot create the pipe that ties a client terminal to the agent");
            }
            // read and write: opening does not wait for a reader, and the agent holds a writer until it closes it
            alive = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE);
            List<String> argv;
            Path status = null;
            if (spec.sandbox() != null) {
                launch = spec.sandbox().sandbox().prepare(spec.commandLine(), spec.cwd(), spec.sandbox().policy());
                argv = launch.argv();
                if (launch.reportsOnStderr()) status = dir.resolve("status");
            } else {
                argv = List.of(BASH.toString(), "-c", spec.commandLine());
            }
            ObjectNode create = Json.object().put("sessionId", sessionId).put("command", ENV.toString());
            var args = create.putArray("args");
            args.add("-i");
            for (Map.Entry<String, String> v : environment.variables().entrySet()) {
                if (NAME.matcher(v.getKey()).matches()) args.add(v.getKey() + "=" + v.getValue());
            }
            args.add(BASH.toString()).add("-c").add(WRAPPER).add("agent-terminal").add(dir.toString())
                    .add(status == null ? "" : status.toString()).add(SETSID.toString());
            argv.forEach(args::add);
            create.putArray("env");
            create.put("cwd", spec.cwd().toString());
            create.put("outputByteLimit", OUTPUT_BYTE_LIMIT);
            JsonNode created;
            try {
                created = client.request("terminal/create", create);
            } catch (IOException | InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException("terminal/create failed: " + e.getMessage(), e);
            }
            terminalId = created == null ? "" : created.path("terminalId").asText("");
            if (terminalId.isEmpty()) {
                terminalId = null;
                throw new IOException("terminal/create answered without a terminalId");
            }
            String id = terminalId;
            long pid = awaitPid(dir.resolve("pid"), () -> {
                JsonNode out = timed(client, "terminal/output", ids(sessionId, id));
                return out != null && out.hasNonNull("exitStatus");
            });
            if (pid < 0) {
                JsonNode out = timed(client, "terminal/output", ids(sessionId, terminalId));
                String said = out == null ? "" : out.path("output").asText("").strip();
                throw new IOException("the client's terminal did not start the command"
                        + (said.isEmpty() ? "" : ": " + (said.length() > 500 ? said.substring(0, 500) + "…" : said)));
            }
            return new ClientTerminalBackground(client, sessionId, terminalId, dir, alive, pid, launch, status,
                    Math.max(1024, spec.outputLimit()));
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (alive != null) closeQuietly(alive); // the wrapper, if it started, ends what it started
            if (terminalId != null) {
                timed(client, "terminal/kill", ids(sessionId, terminalId));
                timed(client, "terminal/release", ids(sessionId, terminalId));
            }
            if (launch != null) launch.close();
            deleteTree(dir);
            throw e;
        }
    }

    /**
     * The pid the wrapper writes once the command started, or -1 when it did not within {@link #START_MS} or the
     * terminal ended without it ({@code exited}, asked every half second).
     */
    private static long awaitPid(Path file, java.util.function.BooleanSupplier exited) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_MS);
        for (int i = 1; System.nanoTime() < deadline; i++) {
            long pid = readPid(file);
            if (pid >= 0) return pid;
            if (i % 25 == 0 && exited.getAsBoolean()) return readPid(file);
            Thread.sleep(20);
        }
        return -1;
    }

    private static long readPid(Path file) {
        try {
            if (Files.isRegularFile(file)) return Long.parseLong(Files.readString(file).strip());
        } catch (IOException | NumberFormatException e) {
            // not written yet (it is moved in place whole)
        }
        return -1;
    }

    /** Waits for the end, then ends what is left of its group, keeps its last output and releases the terminal. */
    private void follow() {
        JsonNode exit = null;
        try {
            exit = client.request("terminal/wait_for_exit", ids(sessionId, terminalId));
        } catch (Exception e) {
            log.debug("terminal/wait_for_exit for {} failed: {}", terminalId, e.toString());
        }
        end(exit);
    }

    /** Once: what is left of its group ends, the last output is kept, the terminal released. */
    private void end(JsonNode exit) {
        if (!ending.compareAndSet(false, true)) return; // the other caller ends it
        String failure = null;
        if (status != null && exit != null) {
            try {
                failure = SandboxLaunch.failure(Files.readString(status, StandardCharsets.UTF_8));
            } catch (IOException e) {
                log.debug("no sandbox report for terminal {}: {}", terminalId, e.toString());
            }
        }
        closeQuietly(alive);
        refresh();
        timed(client, "terminal/release", ids(sessionId, terminalId));
        if (launch != null) launch.close();
        deleteTree(dir);
        synchronized (this) {
            if (!ended) exitCode = exitCode(exit);
            sandboxFailure = failure;
            ended = true;
            released = true;
            notifyAll();
        }
    }

    /** The exit code in a {@code TerminalExitStatus} ({@code 128 + n} for signal n), or null when unknown. */
    static Integer exitCode(JsonNode exit) {
        if (exit == null) return null;
        if (exit.path("exitCode").isIntegralNumber()) return exit.get("exitCode").asInt();
        int n = switch (exit.path("signal").asText("").replaceFirst("^SIG", "")) {
            case "HUP" -> 1;
            case "INT" -> 2;
            case "QUIT" -> 3;
            case "KILL" -> 9;
            case "TERM" -> 15;
            default -> -1;
        };
        return n < 0 ? null : 128 + n;
    }

    /** Reads the terminal's retained output and keeps what is new since the last read. */
    private void refresh() {
        synchronized (this) {
            if (released) return;
        }
        JsonNode out = timed(client, "terminal/output", ids(sessionId, terminalId));
        if (out == null || !out.path("output").isTextual()) return;
        synchronized (this) {
            String now = out.get("output").asText();
            if (seen.startsWith(now)) return; // nothing new, or an answer older than one already read (two readers)
            String fresh;
            if (now.startsWith(seen)) {
                fresh = now.substring(seen.length());
            } else { // the client dropped the beginning: what is new follows the end of what was read
                String tail = seen.substring(Math.max(0, seen.length() - 256));
                int at = tail.isEmpty() ? -1 : now.indexOf(tail);
                fresh = at < 0 ? now : now.substring(at + tail.length());
            }
            seen = now;
            unread.append(fresh);
            if (unread.length() > unreadLimit) {
                int drop = unread.length() - unreadLimit;
                unread.delete(0, drop);
                dropped += drop;
            }
            if (!fresh.isEmpty()) notifyAll();
        }
    }

    @Override
    public long pid() { return pid; }

    @Override
    public String terminalId() { return terminalId; }

    @Override
    public synchronized boolean running() { return !ended; }

    @Override
    public CommandRunner.Output read() {
        refresh();
        synchronized (this) {
            CommandRunner.Output out = new CommandRunner.Output(unread.toString(), dropped, !ended, exitCode, killed, sandboxFailure);
            unread.setLength(0);
            dropped = 0;
            return out;
        }
    }

    @Override
    public void awaitOutput(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (true) {
            refresh();
            synchronized (this) {
                if (!unread.isEmpty() || ended) return;
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) return;
                wait(Math.min(left, 50));
            }
        }
    }

    /**
     * Closes the agent's end of the FIFO: the wrapper's guard sends SIGTERM to the group, SIGKILL a second later, and
     * then removes the private directory, which this waits for (on this machine: it never waits on the client, so that
     * a session closing does not either). Then, on a thread of its own, asks the client to kill the terminal's command
     * too, waits for the end and releases the terminal.
     */
    @Override
    public void kill() {
        synchronized (this) {
            if (ended) return;
            killed = true;
        }
        closeQuietly(alive);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GUARD_MS);
        boolean interrupted = false;
        while (Files.exists(dir) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        killGroup(); // what is left, should the guard not have done it (the client ended the wrapper, the guard with it)
        synchronized (this) {
            ended = true;
            notifyAll();
        }
        Thread.ofVirtual().name("terminal-kill-" + terminalId).start(() -> {
            timed(client, "terminal/kill", ids(sessionId, terminalId));
            awaitReleased(KILL_MS);
            end(null); // when the client never told the end: the terminal is released all the same
        });
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** SIGKILL to the command's process group, from here. */
    private void killGroup() {
        try {
            Process k = new ProcessBuilder("kill", "-KILL", "--", "-" + pid).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            k.waitFor(2, TimeUnit.SECONDS);
        } catch (IOException e) {
            log.debug("kill -KILL -{} failed: {}", pid, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the terminal was released, at most {@code millis}. */
    private synchronized void awaitReleased(long millis) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!released && System.nanoTime() < deadline) {
            try {
                wait(50);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    private static ObjectNode ids(String sessionId, String terminalId) {
        return Json.object().put("sessionId", sessionId).put("terminalId", terminalId);
    }

    /** A request that neither hangs nor throws: its answer within {@link #REQUEST_MS}, else null (logged). */
    private static JsonNode timed(ClientRequests client, String method, ObjectNode params) {
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        Thread.ofVirtual().name("terminal-request").start(() -> {
            try {
                answer.complete(client.request(method, params));
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        });
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return answer.get(REQUEST_MS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (Exception e) {
            log.debug("{} for terminal {} failed: {}", method, params.path("terminalId").asText(), e.toString());
            return null;
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(FileChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            log.debug("closing a terminal's pipe failed: {}", e.toString());
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            log.debug("cannot remove {}: {}", dir, e.toString());
        }
    }

    private static Path firstExecutable(String name) {
        for (String d : List.of("/usr/bin", "/bin", "/usr/local/bin")) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) return p;
        }
        return null;
    }
}
