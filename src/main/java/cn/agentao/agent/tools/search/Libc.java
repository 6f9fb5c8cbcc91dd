package cn.agentao.agent.tools.search;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What grep and glob ask of the C library, reached through the FFM API ({@code java.lang.foreign}, final from
 * Java 22: {@code FfmLibc} in src/main/java22), because it is much cheaper than the Java way under the agent's
 * C1-only JIT: byte scans by {@code memchr} and {@code memmem} (SIMD code, many times faster than
 * {@link ByteScan}'s, with no intrinsics in C1) over bytes in native memory (a direct buffer); and directory
 * listings by {@code readdir}, whose entry types spare the walk an {@code lstat} per entry.
 * {@link #libc()} is null where that cannot work: a Java 21 runtime, native access not enabled (the JVM would print
 * a warning; the launcher and the tests enable it), a libc without the symbols, a system other than Linux, a
 * native image without foreign support, or {@code -Dagent.search.native=off}. Then {@link ByteScan}'s SWAR scans
 * and the JDK's directory streams do the work, with the same results.
 */
interface Libc {
    /** {@code d_type} of a directory, of a regular file; {@code 0}: unknown, the file system does not say. */
    int DT_DIR = 4, DT_REG = 8, DT_UNKNOWN = 0;

    /**
     * A directory entry as {@code readdir} gives it: its name and {@code d_type}; with times asked for, the entry's
     * own last modification in milliseconds ({@code fstatat} without following a link), else {@link #NO_TIME}.
     */
    record Dirent(String name, int type, long modifiedMillis) {
        Dirent(String name, int type) {
            this(name, type, NO_TIME);
        }
    }

    /** No modification time known. */
    long NO_TIME = Long.MIN_VALUE;

    /** The first index in [from, to) of {@code text} holding {@code value}, or -1. Indexes count from the buffer's start. */
    int indexOf(ByteBuffer text, int from, int to, byte value);

    /** The first index in [from, to) of {@code text} where all of {@code needle} (from 0 to its limit) starts, or -1. */
    int indexOf(ByteBuffer text, int from, int to, ByteBuffer needle);

    /**
     * The entries of {@code dir} (not {@code .} and {@code ..}), in no order; null when it cannot be opened or
     * read, or when a name is not ASCII (then the JDK, which keeps a name's bytes as they are, lists it).
     */
    default List<Dirent> list(Path dir) {
        return list(dir, false);
    }

    /**
     * As {@link #list(Path)}; with {@code times}, each entry's modification time as well, read relative to the open
     * directory (no path lookup, no Java attributes object), where this platform's {@code struct stat} is known.
     */
    List<Dirent> list(Path dir, boolean times);

    /** The C library's functions, linked on the first call (which waits for it), or null when unavailable here. */
    static Libc libc() {
        return Link.LIBC;
    }

    /**
     * The C library's functions if already linked, else null: the first call starts linking them on a background
     * thread, since linking takes about a tenth of a second under C1 (class loading and method handles the AOT cache
     * cannot keep), more than the search it would serve, so that search is done the Java way meanwhile.
     */
    static Libc ifLinked() {
        if (Link.linked) return Link.LIBC;
        if (Link.STARTED.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("libc-link").start(() -> {
                Link.linked = Link.LIBC != null;
            });
        }
        return null;
    }

    /** Links the functions once, on first use. */
    final class Link {
        static final AtomicBoolean STARTED = new AtomicBoolean();
        static final Libc LIBC = load();
        static volatile boolean linked;

        private Link() {}

        private static Libc load() {
            if (Runtime.version().feature() < 22 || "off".equals(System.getProperty("agent.search.native"))
                    || !"Linux".equals(System.getProperty("os.name"))) return null; // readdir's struct: Linux's
            try {
                return (Libc) Class.forName("cn.agentao.agent.tools.search.FfmLibc").getDeclaredMethod("load").invoke(null);
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                return null;
            }
        }
    }
}
