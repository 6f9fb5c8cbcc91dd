package cn.agentao.agent.connect.mcp;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MCP server processes this agent started, so none outlives it: {@link #killTree} stops a process with
 * its descendants (an {@code npx} launcher and the server it runs), and a JVM shutdown hook kills whatever
 * is still registered when the agent exits without closing its sessions (SIGTERM, SIGINT).
 */
final class ChildProcesses {
    private static final Logger log = LoggerFactory.getLogger(ChildProcesses.class);
    private static final Set<ProcessHandle> LIVE = ConcurrentHashMap.newKeySet();
    private static final long EXIT_POLL_MILLIS = 10;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::killAllNow, "mcp-child-reaper"));
    }

    private ChildProcesses() {}

    static void register(ProcessHandle process) {
        LIVE.add(process);
    }

    /** A process that ended by itself: nothing left to kill. */
    static void unregister(ProcessHandle process) {
        LIVE.remove(process);
    }

    /**
     * Stops {@code root} and every process under it: SIGTERM to all, then SIGKILL to those still alive after
     * {@code grace}. Descendants are found before the root dies (after, they are no longer its descendants).
     */
    static void killTree(ProcessHandle root, Duration grace) {
        List<ProcessHandle> all = tree(root);
        all.forEach(ProcessHandle::destroy);
        // Polled rather than onExit(): the JDK watches processes that are not our direct children with a
        // slowly backing-off poll, which would make every close take a second or more.
        long deadline = System.nanoTime() + grace.toNanos();
        while (all.stream().anyMatch(ChildProcesses::isRunning) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(EXIT_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (ProcessHandle p : tree(root)) if (!all.contains(p)) all.add(p);
        for (ProcessHandle p : all) {
            if (isRunning(p)) {
                log.debug("MCP server process {} did not stop on SIGTERM; killing it", p.pid());
                p.destroyForcibly();
            }
        }
        LIVE.remove(root);
    }

    /**
     * Alive and not a zombie. A killed descendant stays a zombie until its new parent reaps it, which in a
     * container whose init does not reap promptly can take seconds; {@link ProcessHandle#isAlive()} counts
     * zombies as alive. (Reads {@code /proc} where there is one.)
     */
    static boolean isRunning(ProcessHandle p) {
        if (!p.isAlive()) return false;
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
        } catch (IOException | RuntimeException e) {
            return p.isAlive();
        }
    }

    private static List<ProcessHandle> tree(ProcessHandle root) {
        List<ProcessHandle> all = new ArrayList<>();
        all.add(root);
        root.descendants().forEach(all::add);
        return all;
    }

    private static void killAllNow() {
        for (ProcessHandle root : List.copyOf(LIVE)) {
            for (ProcessHandle p : tree(root)) p.destroyForcibly();
        }
        LIVE.clear();
    }
}
