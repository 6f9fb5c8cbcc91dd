package cn.agentao.agent.core.tool.local;

import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.sandbox.SandboxLaunch;
import cn.agentao.agent.util.Cancellation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs commands as child processes of the agent: {@code bash -c} in a new session (via {@code setsid} when
 * available, so the whole process group can be signalled), stdin from {@code /dev/null}, stdout and stderr
 * merged and streamed to the listener. A spec with a sandbox runs inside it ({@link SandboxLaunch}).
 *
 * <p>On timeout, cancellation or interrupt the process tree is killed: every descendant
 * ({@link ProcessHandle#descendants()}, collected before anything dies so none is orphaned unseen) and the
 * process group get SIGTERM, and whatever is still alive a second later SIGKILL.
 *
 * <p>When the shell exits but a background process it started still holds the output open, the runner waits
 * briefly for it and then returns, leaving that process running.
 */
public final class LocalCommandRunner implements CommandRunner {
    private static final Logger log = LoggerFactory.getLogger(LocalCommandRunner.class);

    /** Output characters kept for progress display. */
    public static final int DISPLAY_CHARS = 64 * 1024;
    private static final long PROGRESS_INTERVAL_MS = 100;
    private static final long DRAIN_AFTER_EXIT_MS = 1000;
    private static final long TERM_GRACE_MS = 1000;
    private static final Path SETSID = findSetsid();

    private final ChildEnvironment environment;
    private final Path setsid;

    /** Commands outside a session: the agent's environment without its credentials. */
    public LocalCommandRunner() {
        this(ChildEnvironment.ofAgent(List.of()));
    }

    /** @param environment what every command gets as its whole environment */
    public LocalCommandRunner(ChildEnvironment environment) {
        this(environment, true);
    }

    /** @param useProcessGroup false to rely on {@link ProcessHandle#descendants()} alone (as without setsid) */
    public LocalCommandRunner(ChildEnvironment environment, boolean useProcessGroup) {
        this.setsid = useProcessGroup ? SETSID : null;
        this.environment = environment;
    }

    /** The environment every process this runner starts gets. */
    public ChildEnvironment environment() { return environment; }

    private static Path findSetsid() {
        for (String dir : List.of("/usr/bin", "/bin", "/usr/local/bin")) {
            Path p = Path.of(dir, "setsid");
            if (Files.isExecutable(p)) return p;
        }
        return null;
    }

    @Override
    public Result run(Spec spec, Listener listener, Cancellation cancellation)
            throws IOException, InterruptedException {
        if (spec.sandbox() == null) return run(spec, null, listener, cancellation);
        try (SandboxLaunch launch = spec.sandbox().sandbox().prepare(spec.commandLine(), spec.cwd(), spec.sandbox().policy())) {
            return run(spec, launch, listener, cancellation);
        }
    }

    /**
     * Starts the command in the background. Sandboxed, it dies with the agent through the sandbox
     * ({@code bwrap --die-with-parent} and its own pid namespace). Unconfined, it starts under a guard in its
     * process group that holds the read end of a pipe only the agent writes to: when the agent's process ends,
     * however it ends (even {@code kill -9}), the pipe closes and the guard ends the whole group.
     */
    @Override
    public Background start(Spec spec) throws IOException, InterruptedException {
        int limit = Math.max(1024, spec.outputLimit());
        if (spec.sandbox() != null) {
            SandboxLaunch launch = spec.sandbox().sandbox().prepare(spec.commandLine(), spec.cwd(), spec.sandbox().policy());
            try {
                ProcessBuilder pb = builder(launch.argv(), spec.cwd());
                return new LocalBackground(launch.start(pb), launch, setsid != null, limit);
            } catch (IOException | InterruptedException | RuntimeException e) {
                launch.close();
                throw e;
            }
        }
        if (setsid == null) {
            return new LocalBackground(builder(List.of("bash", "-c", spec.commandLine()), spec.cwd()).start(), null, false, limit);
        }
        ProcessBuilder pb = builder(List.of("bash", "-c", GUARD, "agent-background-guard", spec.commandLine()), spec.cwd())
                .redirectInput(ProcessBuilder.Redirect.PIPE);
        return new LocalBackground(pb.start(), null, true, limit);
    }

    /**
     * The guard of an unconfined background command: keeps the pipe from the agent on fd 3 in a subshell of the
     * group (stdin of the command itself is {@code /dev/null}), and when it reads end-of-file (the agent's process
     * is gone) sends SIGTERM to the group (which it then ignores itself), then SIGKILL. Until then a SIGTERM to the
     * group ends the guard with the rest. Run as {@code bash -c GUARD name commandLine} under setsid.
     */
    static final String GUARD = """
            exec 3<&0 </dev/null
            ( read -r _ <&3; trap '' TERM; kill -TERM -$$; sleep 1; kill -KILL -$$ ) >/dev/null 2>&1 &
            exec 3<&-
            exec bash -c "$1"
            """;

    /** {@code argv} (under setsid when there is one) in {@code cwd}: the runner's environment, no stdin, stderr merged. */
    private ProcessBuilder builder(List<String> argv, Path cwd) {
        List<String> command = new ArrayList<>();
        if (setsid != null) command.add(setsid.toString());
        command.addAll(argv);
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(cwd.toFile())
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(environment.variables());
        return pb;
    }

    private Result run(Spec spec, SandboxLaunch launch, Listener listener, Cancellation cancellation)
            throws IOException, InterruptedException {
        ProcessBuilder pb = builder(launch != null ? launch.argv() : List.of("bash", "-c", spec.commandLine()), spec.cwd());

        int limit = Math.max(1024, spec.outputLimit());
        BoundedOutput output = new BoundedOutput(limit / 4, Math.max(DISPLAY_CHARS, limit));
        Process process = launch != null ? launch.start(pb) : pb.start();
        AtomicBoolean finished = new AtomicBoolean();
        Listener live = new Listener() {
            @Override
            public void output(String tail) {
                if (!finished.get()) listener.output(tail);
            }
        };
        Thread reader = Thread.ofVirtual().name("command-output-" + process.pid())
                .start(() -> pump(process, output, live));

        long deadline = System.nanoTime() + spec.timeout().toNanos();
        boolean timedOut = false;
        boolean cancelled = false;
        boolean interrupted = false;
        try {
            while (!process.waitFor(50, TimeUnit.MILLISECONDS)) {
                if (cancellation.isCancelled()) {
                    cancelled = true;
                    break;
                }
                if (System.nanoTime() - deadline > 0) {
                    timedOut = true;
                    break;
                }
            }
        } catch (InterruptedException e) {
            interrupted = true;
            cancelled = true;
        }
        if (timedOut || cancelled) killTree(process, setsid != null);
        try {
            reader.join(timedOut || cancelled ? TERM_GRACE_MS : DRAIN_AFTER_EXIT_MS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (reader.isAlive()) log.debug("output of pid {} still open after the shell ended", process.pid());

        Integer exit = process.isAlive() ? null : process.exitValue();
        String signal = null;
        if (timedOut || cancelled) {
            signal = "SIGKILL";
            if (exit != null && exit == 128 + 15) signal = "SIGTERM";
            exit = null;
        }
        finished.set(true);
        String text = output.render(limit - limit / 4);
        String sandboxFailure = launch != null && exit != null ? launch.failure() : null;
        Result result = new Result(exit, signal, text, output.total() > limit, timedOut, cancelled, null, sandboxFailure);
        if (interrupted) throw new InterruptedException("command interrupted; process tree killed");
        return result;
    }

    private static void pump(Process process, BoundedOutput output, Listener listener) {
        char[] buf = new char[8192];
        long lastShown = 0;
        try (Reader in = new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                output.append(new String(buf, 0, n));
                long now = System.nanoTime();
                if (now - lastShown > TimeUnit.MILLISECONDS.toNanos(PROGRESS_INTERVAL_MS)) {
                    lastShown = now;
                    listener.output(output.last(DISPLAY_CHARS));
                }
            }
        } catch (IOException e) {
            log.debug("output of pid {} closed: {}", process.pid(), e.getMessage());
        }
        listener.output(output.last(DISPLAY_CHARS));
    }

    /**
     * SIGTERM to the group and every descendant, then SIGKILL to whatever survives; waits for them to die.
     * Not interruptible (an interrupt is kept for the caller), so a cancel cannot leave half the tree alive.
     */
    public static void killTree(Process process, boolean processGroup) {
        boolean interrupted = Thread.interrupted();
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(process.toHandle());
        process.descendants().forEach(tree::add);
        if (processGroup) signalGroup(process.pid(), "TERM");
        for (ProcessHandle h : tree) h.destroy();

        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TERM_GRACE_MS);
        while (System.nanoTime() < deadline && tree.stream().anyMatch(LocalCommandRunner::isRunning)) {
            process.descendants().filter(h -> !tree.contains(h)).forEach(tree::add); // late children
            interrupted |= pause(20);
        }
        if (processGroup) signalGroup(process.pid(), "KILL");
        process.descendants().filter(h -> !tree.contains(h)).forEach(tree::add);
        for (ProcessHandle h : tree) if (isRunning(h)) h.destroyForcibly();
        deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TERM_GRACE_MS);
        while (System.nanoTime() < deadline && tree.stream().anyMatch(LocalCommandRunner::isRunning)) {
            interrupted |= pause(10);
        }
        for (ProcessHandle h : tree) if (isRunning(h)) log.warn("process {} survived SIGKILL", h.pid());
        if (interrupted) Thread.currentThread().interrupt();
    }

    /**
     * Alive and not a zombie. A killed orphan stays a zombie until its new parent (init, or whatever runs as
     * PID 1 in a container) reaps it, and {@link ProcessHandle#isAlive()} counts zombies as alive.
     */
    public static boolean isRunning(ProcessHandle h) {
        if (!h.isAlive()) return false;
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(h.pid()), "stat"));
            int close = stat.lastIndexOf(')'); // the command name may contain spaces and parentheses
            char state = close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException e) {
            return h.isAlive(); // no /proc (not Linux) or already gone
        }
    }

    /** Sleeps; returns whether an interrupt arrived (and was swallowed). */
    private static boolean pause(long millis) {
        try {
            Thread.sleep(millis);
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }

    /** Signals the process group led by {@code pid} (the command runs in its own session under setsid). */
    private static void signalGroup(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, "--", "-" + pid)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (kill.isAlive() && System.nanoTime() < deadline) {
                if (pause(5)) Thread.currentThread().interrupt();
            }
        } catch (IOException e) {
            log.debug("kill -{} -{} failed: {}", signal, pid, e.getMessage());
        }
    }
}
