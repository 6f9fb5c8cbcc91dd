package cn.agentao.agent.tools;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Byte scans by libc's {@code memchr} and {@code memmem} (SIMD code, many times faster than {@link ByteScan} under
 * the agent's C1-only JIT, which has no such intrinsics) over bytes in native memory (a direct buffer), reached
 * through the FFM API ({@code java.lang.foreign}, final from Java 22: {@code LibcScan} in src/main/java22).
 * {@link #libc()} is null where that cannot work: a Java 21 runtime, native access not enabled (the JVM would print
 * a warning; the launcher and the tests enable it), a libc without the symbols, a native image without foreign
 * support, or {@code -Dagent.search.native=off}. Then {@link ByteScan}'s SWAR scans do the work, with the same
 * results. Indexes count from the buffer's start, whatever its position and limit.
 */
interface NativeScan {
    /** The first index in [from, to) of {@code text} holding {@code value}, or -1. */
    int indexOf(ByteBuffer text, int from, int to, byte value);

    /** The first index in [from, to) of {@code text} where all of {@code needle} (from 0 to its limit) starts, or -1. */
    int indexOf(ByteBuffer text, int from, int to, ByteBuffer needle);

    /** libc's scans, linked on the first call (which waits for it), or null when unavailable here. */
    static NativeScan libc() {
        return Link.LIBC;
    }

    /**
     * libc's scans if already linked, else null: the first call starts linking them on a background thread, since
     * linking takes about a tenth of a second under C1 (class loading and method handles the AOT cache cannot keep),
     * more than the search it would serve, so that search is done by the Java scans meanwhile.
     */
    static NativeScan ifLinked() {
        if (Link.linked) return Link.LIBC;
        if (Link.STARTED.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("libc-link").start(() -> {
                Link.linked = Link.LIBC != null;
            });
        }
        return null;
    }

    /** Links libc's scans once, on first use. */
    final class Link {
        static final AtomicBoolean STARTED = new AtomicBoolean();
        static final NativeScan LIBC = load();
        static volatile boolean linked;

        private Link() {}

        private static NativeScan load() {
            if (Runtime.version().feature() < 22 || "off".equals(System.getProperty("agent.search.native"))) return null;
            try {
                return (NativeScan) Class.forName("cn.agentao.agent.tools.LibcScan").getDeclaredMethod("load").invoke(null);
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                return null;
            }
        }
    }
}
