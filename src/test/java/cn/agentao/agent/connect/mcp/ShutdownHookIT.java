package cn.agentao.agent.connect.mcp;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An agent that gets SIGTERM without closing its sessions leaves no MCP process behind: the shutdown hook
 * kills every registered server with its descendants. Runs a real child JVM ({@link Child}) whose server
 * leaves a grandchild that ignores its input, which nothing but the hook would stop.
 */
class ShutdownHookIT {

    @Test
    void sigtermOfTheAgentKillsItsServersAndTheirDescendants() throws Exception {
        McpTestServers.requireNode();
        String marker = Long.toString(Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L));
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-Dagent.home=" + McpTestServers.HOME,
                Child.class.getName(), marker)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertNotNull(line, "the child JVM started its MCP server");
            assertTrue(line.startsWith("READY "), line);
            long serverPid = Long.parseLong(line.substring(6).strip());
            assertEquals(1, running("sleep 300." + marker).size(), "the grandchild runs");

            child.destroy(); // SIGTERM
            assertTrue(child.waitFor(10, TimeUnit.SECONDS), "the child JVM exits on SIGTERM");
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline && (!running("sleep 300." + marker).isEmpty()
                    || ProcessHandle.of(serverPid).map(ChildProcesses::isRunning).orElse(false))) {
                Thread.sleep(50);
            }
            assertEquals(List.of(), running("sleep 300." + marker), "no orphaned grandchild");
            assertTrue(ProcessHandle.of(serverPid).map(p -> !ChildProcesses.isRunning(p)).orElse(true), "the server process is gone");
        } finally {
            child.destroyForcibly();
            running("sleep 300." + marker).forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** Every process on the machine (orphans included) whose command line mentions {@code marker}. */
    private static List<ProcessHandle> running(String marker) {
        return ProcessHandle.allProcesses().filter(ChildProcesses::isRunning)
                .filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false))
                .toList();
    }

    /** The agent stand-in: starts one server, says its pid, and waits to be killed. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            McpServerSet set = McpServerSet.start(List.of(ServerLifecycleIT.everythingWithGrandchild("s", args[0])), null,
                    McpServerSet.Listener.NONE);
            if (!set.awaitReady(Duration.ofSeconds(30)) || set.pid("s") < 0) System.exit(2);
            System.out.println("READY " + set.pid("s"));
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
