package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One prepared sandboxed run: the argv to start, how to tell the sandbox's own failure from the command's, and
 * what to tidy up afterwards. Start it with {@link #start}, ask {@link #failure()} once it ended, then close it.
 */
public final class SandboxLaunch implements AutoCloseable {
    private static final int MAX_STATUS_CHARS = 16 * 1024;

    private final List<String> argv;
    private final boolean statusOnStderr;
    private final Runnable cleanup;
    private final StringBuffer status = new StringBuffer();
    private Thread statusReader;

    /**
     * @param argv           the whole command line, sandbox program first
     * @param statusOnStderr the sandbox reports on stderr ({@code bwrap --json-status-fd 2}) while the command's own
     *                       stderr is merged into stdout inside; false to merge stderr into stdout here
     * @param cleanup        run once when the launch is closed
     */
    public SandboxLaunch(List<String> argv, boolean statusOnStderr, Runnable cleanup) {
        this.argv = List.copyOf(argv);
        this.statusOnStderr = statusOnStderr;
        this.cleanup = cleanup;
    }

    public List<String> argv() { return argv; }

    /** Whether the sandbox reports on stderr (to be kept apart from the command's output, which it merges into stdout). */
    public boolean reportsOnStderr() { return statusOnStderr; }

    /**
     * Starts {@code pb} (whose command the caller built around {@link #argv()}) from the long-lived spawner thread,
     * so that {@code --die-with-parent} follows a thread that does not go away.
     */
    public Process start(ProcessBuilder pb) throws IOException, InterruptedException {
        if (statusOnStderr) pb.redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.PIPE);
        else pb.redirectErrorStream(true);
        Process p = Spawner.start(pb);
        if (statusOnStderr) {
            statusReader = Thread.ofVirtual().name("sandbox-status-" + p.pid()).start(() -> readStatus(p.getErrorStream()));
        }
        return p;
    }

    private void readStatus(InputStream in) {
        byte[] buf = new byte[4096];
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (status.length() < MAX_STATUS_CHARS) status.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            }
        } catch (IOException ignored) {
            // the sandbox ended
        }
    }

    /**
     * After the process ended: the sandbox's own error when it failed before the command started (the command
     * did not run), else null.
     */
    public String failure() throws InterruptedException {
        if (!statusOnStderr || statusReader == null) return null;
        statusReader.join(1000);
        return failure(status.toString());
    }

    /**
     * The sandbox's own error in what it reported ({@code --json-status-fd}) for a run that ended, else null: for a run
     * whose report was kept elsewhere (a file, when a client's terminal started it).
     */
    public static String failure(String s) {
        if (s.contains("\"exit-code\"")) return null; // bwrap reports the command's exit only when it ran
        String text = s.lines().filter(l -> !l.startsWith("{")).reduce((a, b) -> a + "\n" + b).orElse("").strip();
        return text.isEmpty() ? "the sandbox ended before the command started" : text;
    }

    @Override
    public void close() {
        cleanup.run();
    }
}
