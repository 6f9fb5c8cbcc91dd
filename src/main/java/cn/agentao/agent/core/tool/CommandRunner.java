package cn.agentao.agent.core.tool;

import cn.agentao.agent.sandbox.Confinement;
import cn.agentao.agent.util.Cancellation;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** Runs a shell command line, locally or in a client terminal. */
public interface CommandRunner {

    /**
     * Runs {@code bash -c commandLine} in the spec's cwd and blocks until it exits, times out, or is cancelled
     * (or the thread is interrupted); in the last two cases the whole process tree is killed before returning.
     */
    Result run(Spec spec, Listener listener, Cancellation cancellation) throws IOException, InterruptedException;

    /**
     * Starts {@code bash -c commandLine} in the spec's cwd (and sandbox) and returns at once; the spec's timeout does
     * not apply. The process ends with {@link Background#kill()}, and at the latest when the agent's process ends, however
     * it ends (see {@code docs/tools.md}).
     *
     * @throws IOException when it cannot be started, or this runner cannot run commands in the background
     */
    default Background start(Spec spec) throws IOException, InterruptedException {
        throw new IOException("commands cannot run in the background here");
    }

    /** A command running in the background. Thread-safe. */
    interface Background {
        /** The process id of its process (group leader), for the user to see. */
        long pid();

        /** Whether it still runs. */
        boolean running();

        /** What it printed since the last read (bounded), and whether it ended. */
        Output read();

        /** Waits until it printed something unread or ended, at most {@code millis}. */
        void awaitOutput(long millis) throws InterruptedException;

        /** Ends it and everything it started (SIGTERM, then SIGKILL to what is left); returns once they are gone. */
        void kill();

        /** The client terminal that shows it live, or null when it runs here unseen. */
        default String terminalId() { return null; }
    }

    /**
     * @param text           output (stdout and stderr merged) since the last read
     * @param dropped        characters printed since the last read that did not fit and were dropped (the oldest)
     * @param running        whether it still runs
     * @param exitCode       its exit code once it ended (128 + n when ended by signal n)
     * @param killed         whether it was ended by {@link Background#kill()}
     * @param sandboxFailure the sandbox's own error when it could not start the command (which then did not run)
     */
    record Output(String text, long dropped, boolean running, Integer exitCode, boolean killed, String sandboxFailure) {}

    /**
     * @param outputLimit how many characters of output the result keeps (beginning and end, or only the end
     *                    for a client terminal)
     * @param sandbox     the OS sandbox to run it in, or null to run it unconfined
     */
    record Spec(String commandLine, Path cwd, Duration timeout, int outputLimit, Confinement sandbox) {
        /** An unconfined run. */
        public Spec(String commandLine, Path cwd, Duration timeout, int outputLimit) {
            this(commandLine, cwd, timeout, outputLimit, null);
        }
    }

    /** What a runner reports while the command runs. Called from other threads. */
    interface Listener {
        /** New output arrived; {@code tail} is the bounded end of it. */
        default void output(String tail) { }

        /** The command runs in this client terminal (the client shows it live). */
        default void terminal(String terminalId) { }
    }

    /**
     * @param exitCode   null when it did not exit normally (killed by a signal, or unknown)
     * @param signal     the signal that ended it, when known
     * @param output     output kept (stdout and stderr merged), with a notice where some was omitted
     * @param truncated  whether some output was dropped
     * @param terminalId the client terminal it ran in, or null when it ran locally
     * @param sandboxFailure the sandbox's own error when it could not start the command (which then did not run)
     */
    record Result(Integer exitCode, String signal, String output, boolean truncated, boolean timedOut,
                  boolean cancelled, String terminalId, String sandboxFailure) {
        public Result(Integer exitCode, String signal, String output, boolean truncated, boolean timedOut,
                      boolean cancelled, String terminalId) {
            this(exitCode, signal, output, truncated, timedOut, cancelled, terminalId, null);
        }
    }
}
