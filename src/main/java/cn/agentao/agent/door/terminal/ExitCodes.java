package cn.agentao.agent.door.terminal;

/** The exit codes of {@code agent -p} and the interactive chat (documented in docs/terminal.md). */
public final class ExitCodes {
    /** The answer is complete. */
    public static final int OK = 0;
    /** The model failed, the session could not be opened, or nothing is configured: one plain line on stderr. */
    public static final int FAILED = 1;
    /** A usage error (Picocli's code). */
    public static final int USAGE = 2;
    /** Interrupted (Ctrl-C, SIGINT): 128 + 2. */
    public static final int INTERRUPTED = 130;

    private ExitCodes() {}
}
