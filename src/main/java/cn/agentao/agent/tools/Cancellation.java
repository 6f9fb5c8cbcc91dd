package cn.agentao.agent.tools;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** A {@link CancellationSignal} raised by {@link #cancel()}. */
public final class Cancellation implements CancellationSignal {
    private static final Logger log = LoggerFactory.getLogger(Cancellation.class);

    private final Set<Runnable> actions = new LinkedHashSet<>();
    private boolean cancelled;

    /** Raises the signal and runs the registered actions (once). */
    public void cancel() {
        List<Runnable> toRun;
        synchronized (this) {
            if (cancelled) return;
            cancelled = true;
            toRun = new ArrayList<>(actions);
            actions.clear();
        }
        for (Runnable r : toRun) {
            try {
                r.run();
            } catch (RuntimeException e) {
                log.warn("cancellation action failed", e);
            }
        }
    }

    @Override
    public synchronized boolean isCancelled() {
        return cancelled;
    }

    @Override
    public Registration onCancel(Runnable action) {
        synchronized (this) {
            if (!cancelled) {
                actions.add(action);
                return () -> {
                    synchronized (Cancellation.this) {
                        actions.remove(action);
                    }
                };
            }
        }
        action.run();
        return () -> { };
    }
}
