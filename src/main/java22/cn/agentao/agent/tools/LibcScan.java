package cn.agentao.agent.tools;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;

/**
 * {@link NativeScan} by downcalls to libc's {@code memchr} and {@code memmem} (FFM). Compiled for Java 22 and loaded
 * by name, so nothing else depends on an API Java 21 only previews. Calls are marked critical (no thread state
 * change): each one is short, a few milliseconds for the largest file grep reads.
 */
final class LibcScan implements NativeScan {
    private final MethodHandle memchr;
    private final MethodHandle memmem;

    private LibcScan(MethodHandle memchr, MethodHandle memmem) {
        this.memchr = memchr;
        this.memmem = memmem;
    }

    /** The scans, or null when native access is not enabled (asking would print the JVM's warning) or libc lacks them. */
    static NativeScan load() {
        if (!LibcScan.class.getModule().isNativeAccessEnabled()) return null;
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        var chr = libc.find("memchr");
        var mem = libc.find("memmem");
        if (chr.isEmpty() || mem.isEmpty()) return null;
        return new LibcScan(
                linker.downcallHandle(chr.get(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG), Linker.Option.critical(false)),
                linker.downcallHandle(mem.get(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG),
                        Linker.Option.critical(false)));
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

    private static MemorySegment whole(ByteBuffer b) {
        if (!b.isDirect()) throw new IllegalArgumentException("not a direct buffer");
        return MemorySegment.ofBuffer(b.duplicate().clear());
    }

    private static int offset(MemorySegment all, MemorySegment at) {
        return at.address() == 0 ? -1 : (int) (at.address() - all.address());
    }
}
