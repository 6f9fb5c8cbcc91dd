package cn.agentao.agent.tools.search;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link Libc} by downcalls (FFM). Compiled for Java 22 and loaded by name, so nothing else depends on an API Java 21
 * only previews. The scans are marked critical (no thread state change): each is short, a few milliseconds for the
 * largest file grep reads. Directory reads are not (they may wait on the disk).
 */
final class FfmLibc implements Libc {
    /** Linux's {@code struct dirent} (glibc and musl, 64-bit): d_ino, d_off, d_reclen, then d_type and d_name. */
    private static final long D_TYPE = 18, D_NAME = 19, DIRENT_SIZE = 19 + 256;
    /**
     * Linux's {@code struct stat} on x86-64 and arm64 (glibc and musl): {@code st_mtim} at 88 (seconds, then
     * nanoseconds), 144 and 128 bytes long. Other architectures read times the Java way.
     */
    private static final long ST_MTIME = 88, ST_MTIME_NSEC = 96, STAT_SIZE = 256;
    private static final java.util.Set<String> STAT_MTIME_ARCHES = java.util.Set.of("amd64", "x86_64", "aarch64");
    private static final int AT_SYMLINK_NOFOLLOW = 0x100;

    private final MethodHandle memchr;
    private final MethodHandle memmem;
    private final MethodHandle opendir;
    private final MethodHandle readdir;
    private final MethodHandle closedir;
    /** {@code dirfd} and {@code fstatat}, or null where {@code struct stat}'s layout is not known here. */
    private final MethodHandle dirfd;
    private final MethodHandle fstatat;

    private FfmLibc(Linker linker, SymbolLookup libc) {
        Linker.Option critical = Linker.Option.critical(false);
        memchr = linker.downcallHandle(libc.find("memchr").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), critical);
        memmem = linker.downcallHandle(libc.find("memmem").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG), critical);
        opendir = linker.downcallHandle(libc.find("opendir").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        readdir = linker.downcallHandle(libc.find("readdir").orElseThrow(), FunctionDescriptor.of(
                ValueLayout.ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(DIRENT_SIZE, ValueLayout.JAVA_BYTE)),
                ValueLayout.ADDRESS));
        closedir = linker.downcallHandle(libc.find("closedir").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        boolean statKnown = STAT_MTIME_ARCHES.contains(System.getProperty("os.arch"));
        var dirfdSymbol = libc.find("dirfd");
        var fstatatSymbol = libc.find("fstatat"); // exported by glibc from 2.33, by musl always
        if (statKnown && dirfdSymbol.isPresent() && fstatatSymbol.isPresent()) {
            dirfd = linker.downcallHandle(dirfdSymbol.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            fstatat = linker.downcallHandle(fstatatSymbol.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        } else {
            dirfd = null;
            fstatat = null;
        }
    }

    /** The functions, or null when native access is not enabled (asking would print the JVM's warning), on a 32-bit runtime, or when libc lacks one. */
    static Libc load() {
        if (!FfmLibc.class.getModule().isNativeAccessEnabled()) return null;
        if (ValueLayout.ADDRESS.byteSize() != 8) return null; // the dirent offsets above are those of 64-bit Linux
        try {
            Linker linker = Linker.nativeLinker();
            return new FfmLibc(linker, linker.defaultLookup());
        } catch (java.util.NoSuchElementException e) {
            return null;
        }
    }

    @Override
    public int indexOf(ByteBuffer text, int from, int to, byte value) {
        if (from >= to) return -1;
        MemorySegment all = whole(text);
        try {
            MemorySegment at = (MemorySegment) memchr.invokeExact(all.asSlice(from, to - from), value & 0xff, (long) (to - from));
            return offset(all, at);
        } catch (Throwable e) {
            throw new IllegalStateException("memchr failed", e);
        }
    }

    @Override
    public int indexOf(ByteBuffer text, int from, int to, ByteBuffer needle) {
        MemorySegment n = MemorySegment.ofBuffer(needle.duplicate().position(0));
        if (n.byteSize() > to - from) return -1;
        MemorySegment all = whole(text);
        try {
            MemorySegment at = (MemorySegment) memmem.invokeExact(all.asSlice(from, to - from), (long) (to - from),
                    n, n.byteSize());
            return offset(all, at);
        } catch (Throwable e) {
            throw new IllegalStateException("memmem failed", e);
        }
    }

    @Override
    public List<Dirent> list(Path dir, boolean times) {
        String path = dir.toString();
        if (!ascii(path)) return null;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment stream = (MemorySegment) opendir.invokeExact(arena.allocateFrom(path));
            if (stream.address() == 0) return null;
            try {
                int fd = times && fstatat != null ? (int) dirfd.invokeExact(stream) : -1;
                MemorySegment stat = fd >= 0 ? arena.allocate(STAT_SIZE, 8) : null;
                List<Dirent> out = new ArrayList<>();
                while (true) {
                    MemorySegment entry = (MemorySegment) readdir.invokeExact(stream);
                    if (entry.address() == 0) return out; // the end (or an error: errno is not kept; as the end)
                    String name = entry.getString(D_NAME);
                    if (!ascii(name)) return null;
                    if (name.equals(".") || name.equals("..")) continue;
                    long modified = NO_TIME;
                    if (stat != null && (int) fstatat.invokeExact(fd, entry.asSlice(D_NAME), stat, AT_SYMLINK_NOFOLLOW) == 0) {
                        // as FileTime.toMillis: whole milliseconds, rounded down
                        modified = stat.get(ValueLayout.JAVA_LONG, ST_MTIME) * 1000 + stat.get(ValueLayout.JAVA_LONG, ST_MTIME_NSEC) / 1_000_000;
                    }
                    out.add(new Dirent(name, entry.get(ValueLayout.JAVA_BYTE, D_TYPE), modified));
                }
            } finally {
                int ignored = (int) closedir.invokeExact(stream);
            }
        } catch (Throwable e) {
            return null;
        }
    }

    private static boolean ascii(String s) {
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) >= 0x80) return false;
        return true;
    }

    private static MemorySegment whole(ByteBuffer b) {
        if (!b.isDirect()) throw new IllegalArgumentException("not a direct buffer");
        return MemorySegment.ofBuffer(b.duplicate().clear());
    }

    private static int offset(MemorySegment all, MemorySegment at) {
        return at.address() == 0 ? -1 : (int) (at.address() - all.address());
    }
}
