package cn.agentao.agent.util;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/** The owner's side of a {@link Cancellation}: {@link #cancel()} fires every registered action once. */
public final class CancellationSource implements Cancellation {
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final CopyOnWriteArrayList<Runnable> actions = new CopyOnWriteArrayList<>();

    @Override
    public boolean isCancelled() { return cancelled.get(); }

    /** Returns true if this call cancelled it (false if it was already cancelled). */
    public boolean cancel() {
        if (!cancelled.compareAndSet(false, true)) return false;
        for (Runnable action : actions) {
            try {
                action.run();
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(CancellationSource.class).warn("cancel action failed", e);
            }
        }
        actions.clear();
        return true;
    }

    @Override
    public AutoCloseable onCancel(Runnable action) {
        actions.add(action);
        if (cancelled.get() && actions.remove(action)) action.run();
        return () -> actions.remove(action);
    }
}
