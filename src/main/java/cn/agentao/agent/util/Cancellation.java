package cn.agentao.agent.util;

/** A read-only view of a cancellation: polled by loops, or reacted to with a callback. */
public interface Cancellation {
    Cancellation NEVER = new CancellationSource();

    boolean isCancelled();

    /** Runs {@code action} once when cancelled (at once if already cancelled). Returns a handle that unregisters it. */
    AutoCloseable onCancel(Runnable action);

    default void throwIfCancelled() throws CancelledException {
        if (isCancelled()) throw new CancelledException();
    }

    /** Thrown by work that noticed its cancellation. */
    final class CancelledException extends Exception {
        public CancelledException() { super("cancelled", null, false, false); }
    }
}
