package cn.agentao.agent.cli;

/** SIGTERM/SIGINT: a graceful stop (cancel turns, answer what is pending, release children), exit 0. */
final class Signals {
    private Signals() {}

    @SuppressWarnings("restriction")
    static void onTerminate(Runnable stop) {
        Runnable once = new Runnable() {
            private final java.util.concurrent.atomic.AtomicBoolean ran = new java.util.concurrent.atomic.AtomicBoolean();
            @Override public void run() { if (ran.compareAndSet(false, true)) new Thread(stop, "shutdown").start(); }
        };
        for (String name : new String[]{"TERM", "INT", "HUP"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), s -> once.run());
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // not available on this platform: the JVM's default handling applies
            }
        }
    }

    /**
     * Handles {@code name} with {@code handler}, even when the process started with that signal ignored (a script's
     * background job starts with SIGINT ignored, and the JVM then leaves it ignored): the disposition is first reset
     * to the default through the C library ({@code FfmSignalDefault}, Java 22+ with native access, as the launchers
     * give); where that cannot be done, the signal stays ignored.
     */
    @SuppressWarnings("restriction")
    static void handleEvenIfIgnored(String name, sun.misc.SignalHandler handler) {
        sun.misc.Signal signal = new sun.misc.Signal(name);
        if (sun.misc.Signal.handle(signal, handler) != sun.misc.SignalHandler.SIG_IGN) return;
        if (resetToDefault(signal.getNumber())) sun.misc.Signal.handle(signal, handler);
    }

    private static boolean resetToDefault(int number) {
        if (Runtime.version().feature() < 22) return false;
        try {
            return (Boolean) Class.forName("cn.agentao.agent.cli.FfmSignalDefault").getDeclaredMethod("reset", int.class)
                    .invoke(null, number);
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return false;
        }
    }
}
