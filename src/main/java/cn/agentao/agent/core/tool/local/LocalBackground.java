package cn.agentao.agent.core.tool.local;

import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.sandbox.SandboxLaunch;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;

/**
 * A command running in the background on this machine, in a process group of its own. Its output is read by a
 * thread into a buffer of what has not been read yet, bounded: past {@code unreadLimit} characters the oldest are
 * dropped and counted. When its first process ends, whatever is left of its group is ended too, and a sandbox launch
 * is closed; it counts as ended from then on, even if a process that left its group still holds its output open.
 */
final class LocalBackground implements CommandRunner.Background {
    private static final Logger log = LoggerFactory.getLogger(LocalBackground.class);
    /** How long the end waits for the last output once the group is ended. */
    private static final long DRAIN_MS = 1000;

    private final Process process;
    private final SandboxLaunch launch;
    private final boolean processGroup;
    private final int unreadLimit;
    private final StringBuilder unread = new StringBuilder(); // guarded by this
    private long dropped; // guarded by this
    private boolean ended; // guarded by this: the process exited (and its output was read to the end, or for a while)
    private Integer exitCode; // guarded by this
    private String sandboxFailure; // guarded by this
    private volatile boolean killed;

    LocalBackground(Process process, SandboxLaunch launch, boolean processGroup, int unreadLimit) {
        this.process = process;
        this.launch = launch;
        this.processGroup = processGroup;
        this.unreadLimit = unreadLimit;
        Thread pump = Thread.ofVirtual().name("background-output-" + process.pid()).start(this::pump);
        process.onExit().thenRunAsync(() -> exited(pump), r -> Thread.ofVirtual().start(r));
    }

    /** Its first process exited: what it left in its group ends with it; then its end is noted, with the last output. */
    private void exited(Thread pump) {
        LocalCommandRunner.killTree(process, processGroup);
        Integer code = process.exitValue();
        String failure = null;
        try {
            pump.join(DRAIN_MS);
            if (launch != null) failure = launch.failure();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (launch != null) launch.close();
        }
        synchronized (this) {
            exitCode = code;
            sandboxFailure = failure;
            ended = true;
            notifyAll();
        }
    }

    private void pump() {
        char[] buf = new char[8192];
        try (Reader in = new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)) {
            int n;
            while ((n = in.read(buf)) >= 0) append(buf, n);
        } catch (IOException e) {
            log.debug("output of background pid {} closed: {}", process.pid(), e.getMessage());
        }
    }

    private synchronized void append(char[] buf, int n) {
        unread.append(buf, 0, n);
        if (unread.length() > unreadLimit) {
            int drop = unread.length() - unreadLimit;
            unread.delete(0, drop);
            dropped += drop;
        }
        notifyAll();
    }

    @Override
    public long pid() { return process.pid(); }

    @Override
    public synchronized boolean running() { return !ended; }

    @Override
    public synchronized CommandRunner.Output read() {
        CommandRunner.Output out = new CommandRunner.Output(unread.toString(), dropped, !ended, exitCode, killed, sandboxFailure);
        unread.setLength(0);
        dropped = 0;
        return out;
    }

    @Override
    public synchronized void awaitOutput(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (unread.isEmpty() && !ended) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) return;
            wait(left);
        }
    }

    @Override
    public void kill() {
        killed = true;
        LocalCommandRunner.killTree(process, processGroup);
        synchronized (this) {
            long deadline = System.nanoTime() + 5_000_000_000L; // the pump notes the end once the output closes
            boolean interrupted = false;
            while (!ended && System.nanoTime() < deadline) {
                try {
                    wait(50);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
