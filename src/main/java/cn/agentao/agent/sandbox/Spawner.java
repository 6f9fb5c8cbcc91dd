package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Starts sandboxed processes from one long-lived platform thread. {@code bwrap --die-with-parent} (the kernel's
 * parent-death signal) follows the thread that forked, not the process: a process started from a virtual
 * thread dies as soon as that thread's carrier goes away. This thread lives as long as the agent.
 */
final class Spawner {
    private static final ExecutorService THREAD = Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().name("sandbox-spawner").daemon().unstarted(r));

    private Spawner() {}

    /** Starts {@code pb}; an interrupt while waiting still ends with the process started and destroyed, never leaked. */
    static Process start(ProcessBuilder pb) throws IOException, InterruptedException {
        Future<Process> f = THREAD.submit(pb::start);
        boolean interrupted = false;
        Process p;
        while (true) {
            try {
                p = f.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                if (interrupted) Thread.currentThread().interrupt();
                if (e.getCause() instanceof IOException io) throw io;
                throw new IOException("cannot start " + pb.command().get(0) + ": " + e.getCause(), e.getCause());
            }
        }
        if (interrupted) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new InterruptedException("interrupted while starting a sandboxed command");
        }
        return p;
    }
}
