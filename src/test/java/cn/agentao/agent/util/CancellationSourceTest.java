package cn.agentao.agent.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CancellationSourceTest {

    @Test
    void runsEachRegisteredHookOnce() {
        CancellationSource source = new CancellationSource();
        AtomicInteger runs = new AtomicInteger();
        source.onCancel(runs::incrementAndGet);
        source.onCancel(runs::incrementAndGet);

        assertFalse(source.isCancelled());
        source.cancel();
        source.cancel();

        assertTrue(source.isCancelled());
        assertEquals(2, runs.get());
    }

    @Test
    void closedRegistrationsDoNotRun() {
        CancellationSource source = new CancellationSource();
        AtomicInteger runs = new AtomicInteger();
        Cancellation.Registration registration = source.onCancel(runs::incrementAndGet);

        registration.close();
        registration.close();
        source.cancel();

        assertEquals(0, runs.get());
    }

    @Test
    void hooksRegisteredAfterCancellationRunImmediately() {
        CancellationSource source = new CancellationSource();
        source.cancel();
        AtomicInteger runs = new AtomicInteger();

        source.onCancel(runs::incrementAndGet).close();

        assertEquals(1, runs.get());
    }

    @Test
    void aFailingHookDoesNotStopTheOthers() {
        CancellationSource source = new CancellationSource();
        AtomicInteger runs = new AtomicInteger();
        source.onCancel(() -> {
            throw new IllegalStateException("boom");
        });
        source.onCancel(runs::incrementAndGet);

        source.cancel();

        assertEquals(1, runs.get());
    }

    @Test
    void noneNeverFires() {
        AtomicInteger runs = new AtomicInteger();
        Cancellation.NONE.onCancel(runs::incrementAndGet).close();

        assertFalse(Cancellation.NONE.isCancelled());
        assertEquals(0, runs.get());
    }
}
