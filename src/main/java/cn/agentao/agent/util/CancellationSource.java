package cn.agentao.agent.util;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The owner's side of a {@link Cancellation}: call {@link #cancel()} to fire every registered hook once. */
public final class CancellationSource implements Cancellation {
    private static final Logger LOG = LoggerFactory.getLogger(CancellationSource.class);

    private final Set<Runnable> hooks = new LinkedHashSet<>();
    private boolean cancelled;

    @Override
    public synchronized boolean isCancelled() {
        return cancelled;
    }

    @Override
    public Registration onCancel(Runnable hook) {
        synchronized (this) {
            if (!cancelled) {
                // A wrapper gives each registration its own identity, so registering one hook twice is harmless.
                Runnable entry = hook::run;
                hooks.add(entry);
                return () -> {
                    synchronized (this) {
                        hooks.remove(entry);
                    }
                };
            }
        }
        runQuietly(hook);
        return Registration.EMPTY;
    }

    /** Marks this source cancelled and runs the hooks registered so far; later calls do nothing. */
    public void cancel() {
        List<Runnable> toRun;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            toRun = new ArrayList<>(hooks);
            hooks.clear();
        }
        toRun.forEach(CancellationSource::runQuietly);
    }

    private static void runQuietly(Runnable hook) {
        try {
            hook.run();
        } catch (RuntimeException e) {
            LOG.warn("cancellation hook failed", e);
        }
    }

    @Override
    public synchronized String toString() {
        return cancelled ? "CancellationSource[cancelled]" : "CancellationSource[active, " + hooks.size() + " hooks]";
    }
}
