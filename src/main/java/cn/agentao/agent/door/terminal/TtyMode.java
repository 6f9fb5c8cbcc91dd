package cn.agentao.agent.door.terminal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The terminal's line discipline while the chat's first prompt is on the screen and JLine is not ready yet: keys are
 * neither echoed nor edited by the kernel (no echo, not canonical, Enter not turned into a newline), so JLine later
 * reads them exactly as typed (an arrow, Alt-Enter, Tab work as if JLine had been there). JLine keeps the settings it finds as the ones to restore,
 * so the person's own settings are put back with {@code stty} when the chat ends (also on a signal).
 */
final class TtyMode {
    private final String saved;
    private final AtomicBoolean restored = new AtomicBoolean();

    private TtyMode(String saved) {
        this.saved = saved;
    }

    /** Switches the terminal on stdin to raw keys; null when {@code stty} is not there or failed (nothing changed). */
    static TtyMode rawKeys() {
        try {
            String saved = run("/bin/sh", "-c", "stty -g && stty -icanon -echo -icrnl min 1 time 0").strip();
            if (saved.isEmpty()) return null;
            TtyMode mode = new TtyMode(saved);
            Runtime.getRuntime().addShutdownHook(new Thread(mode::restore, "tty-restore"));
            return mode;
        } catch (IOException | InterruptedException e) {
            return null;
        }
    }

    /** Puts the person's settings back (once). */
    void restore() {
        if (!restored.compareAndSet(false, true)) return;
        try {
            run("stty", saved);
        } catch (IOException | InterruptedException e) {
            // the terminal went away: nothing to restore
        }
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor() == 0 ? out : "";
    }
}
