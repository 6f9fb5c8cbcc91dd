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
}
