package cn.agentao.agent.core;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Gives memory back after a turn that grew the heap (a long streamed answer, a large tool output): the JVM's heap
 * grows while such a turn allocates and, with the Serial collector of {@code launcher/jvm.options}, shrinks only at a
 * full collection, which an idle agent never makes on its own. So when a turn ends with the committed heap grown by
 * {@link #GROWTH} since the last trim, and no turn starts for {@link #IDLE_MS}, a full collection runs on a virtual
 * thread: it compacts the heap and, with the launcher's {@code -XX:MaxHeapFreeRatio} and
 * {@code -XX:-ShrinkHeapInSteps}, uncommits what the live objects do not need. It never runs while any turn of the
 * process is running, so it delays no chunk and no answer (see docs/performance.md, "Memory after long answers").
 */
final class HeapTrim {
    /** Growth of the committed heap since the last trim that makes a full collection worth its pause. */
    static final long GROWTH = 16L << 20;
    /** How long the process must have no running turn before the collection (the answer is written by then). */
    static final long IDLE_MS = 500;

    private static final AtomicInteger running = new AtomicInteger();
    private static volatile long trimmed = Runtime.getRuntime().totalMemory();

    private HeapTrim() { }

    /** A turn starts (any session's). */
    static void turnStarted() {
        running.incrementAndGet();
    }

    /** A turn ended: if the heap grew by {@link #GROWTH}, collect once the process is idle. */
    static void turnEnded() {
        if (running.decrementAndGet() > 0 || Runtime.getRuntime().totalMemory() - trimmed < GROWTH) return;
        Thread.ofVirtual().name("heap-trim").start(() -> {
            try {
                Thread.sleep(IDLE_MS);
            } catch (InterruptedException e) {
                return;
            }
            if (running.get() > 0) return; // a new turn: the next one to end decides
            System.gc();
            trimmed = Runtime.getRuntime().totalMemory();
        });
    }
}
