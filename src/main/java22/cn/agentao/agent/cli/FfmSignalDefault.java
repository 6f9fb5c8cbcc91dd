package cn.agentao.agent.cli;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@link Signals#handleEvenIfIgnored}'s native half: C's {@code signal(sig, SIG_DFL)} by a downcall (FFM, final from
 * Java 22; compiled for Java 22 and loaded by name, as tools/FfmLibc is).
 */
final class FfmSignalDefault {
    private FfmSignalDefault() {}

    /** Sets {@code signal}'s disposition to the default; false when that cannot be done here. */
    static boolean reset(int signal) {
        if (!FfmSignalDefault.class.getModule().isNativeAccessEnabled()) return false; // asking would print the JVM's warning
        try {
            Linker linker = Linker.nativeLinker();
            MethodHandle handle = linker.downcallHandle(linker.defaultLookup().find("signal").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            MemorySegment previous = (MemorySegment) handle.invokeExact(signal, MemorySegment.NULL); // SIG_DFL is 0
            return previous.address() != -1L; // SIG_ERR
        } catch (Throwable e) {
            return false;
        }
    }
}
