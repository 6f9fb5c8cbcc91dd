package cn.agentao.agent.tools;

/** Tells a running call that its turn was cancelled. */
public interface CancellationSignal {

    boolean isCancelled();

    /**
     * Runs {@code action} once when cancelled (at once, on this thread, if already cancelled). Closing the
     * returned registration forgets the action.
     */
    Registration onCancel(Runnable action);

    interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /** A signal that is never raised. */
    CancellationSignal NEVER = new CancellationSignal() {
        @Override
        public boolean isCancelled() { return false; }

        @Override
        public Registration onCancel(Runnable action) { return () -> { }; }
    };
}
