package cn.agentao.agent.door.terminal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the standard streams are terminals, without loading JLine (headless runs never do) and, where
 * {@code /proc} answers, without {@link System#console()} (whose provider look-up costs a few hundred ms).
 */
public final class Terminals {
    private Terminals() {}

    /** True when stdin and stdout are both terminals: the interactive chat is possible. */
    public static boolean interactive() {
        Boolean in = isTerminal(0), out = isTerminal(1);
        if (in != null && out != null) return in && out;
        return System.console() != null;
    }

    /** True when stdin is a terminal (then a prompt is never read from it). */
    public static boolean stdinIsTerminal() {
        Boolean in = isTerminal(0);
        return in != null ? in : System.console() != null;
    }

    /** Whether file descriptor {@code fd} is a terminal, or null when this system cannot say through /proc. */
    private static Boolean isTerminal(int fd) {
        Path link = Path.of("/proc/self/fd/" + fd);
        try {
            if (!Files.isSymbolicLink(link)) return null;
            String target = Files.readSymbolicLink(link).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }
}
