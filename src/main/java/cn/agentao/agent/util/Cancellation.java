package cn.agentao.agent.util;

/**
 * A read-only view of "has the user asked us to stop?", shared by model calls and tools.
 *
 * <p>Work that can block checks {@link #isCancelled()} or registers a hook with {@link #onCancel(Runnable)}
 * that aborts it (closes a connection, kills a process). Hooks run at most once, on the thread that cancels,
 * and must be quick.
 */
public interface Cancellation {

    /** A cancellation that never fires. */
    Cancellation NONE = new Cancellation() {
        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public Registration onCancel(Runnable hook) {
            return Registration.EMPTY;
        }
    };

    boolean isCancelled();

    /**
     * Runs {@code hook} when cancellation happens, or right away (on this thread) if it already has.
     * Close the returned registration when the guarded work ends so long-lived sources do not collect hooks.
     */
    Registration onCancel(Runnable hook);

    /** A registered hook; closing it unregisters the hook (idempotent, never throws). */
    @FunctionalInterface
    interface Registration extends AutoCloseable {
        Registration EMPTY = () -> {};

        @Override
        void close();
    }
}
