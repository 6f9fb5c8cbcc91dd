package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.util.Cancellation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static cn.agentao.agent.connect.mcp.McpTestServers.EVERYTHING;
import static cn.agentao.agent.connect.mcp.McpTestServers.awaitNoDescendants;
import static cn.agentao.agent.connect.mcp.McpTestServers.descendantsRunning;
import static cn.agentao.agent.connect.mcp.McpTestServers.requireNode;
import static cn.agentao.agent.connect.mcp.McpTestServers.stdio;
import static cn.agentao.agent.util.Json.mapper;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Starting, crashing, restarting, timing out and stopping real stdio servers. */
class ServerLifecycleIT {

    /**
     * server-everything behind a shell that also leaves a {@code sleep} child which ignores its input: a
     * descendant only killing the whole process tree removes. {@code marker} is in the sleep's command line.
     */
    static McpServerDefinition everythingWithGrandchild(String name, String marker) {
        String node = requireNode();
        String script = "sleep 300." + marker + " & exec \"" + node + "\" \"" + EVERYTHING + "\" stdio";
        return McpServerDefinition.fromClient(stdio(name, "sh", List.of("-c", script), List.of()));
    }

    private static String marker() {
        return Long.toString(Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L));
    }

    @Test
    void closeStopsEveryProcessWithItsDescendants() throws Exception {
        String marker = marker();
        McpTestServers.RecordingListener listener = new McpTestServers.RecordingListener();
        McpServerSet set = McpServerSet.start(List.of(everythingWithGrandchild("a", marker), everythingWithGrandchild("b", marker + "1")),
                null, listener);
        assertTrue(set.awaitReady(Duration.ofSeconds(30)));
        assertEquals(List.of(), listener.failures);
        assertEquals(2, descendantsRunning("sleep 300." + marker).size(), "both sleeps run under this JVM");
        assertTrue(set.pid("a") > 0);

        set.close();
        assertEquals(List.of(), awaitNoDescendants("sleep 300." + marker, Duration.ofSeconds(20)));
        assertEquals(List.of(), awaitNoDescendants(EVERYTHING.toString(), Duration.ofSeconds(20)));
        assertTrue(set.status().stream().allMatch(s -> s.state() == McpServerState.STOPPED), set.status().toString());
        assertEquals(List.of(), set.tools());
    }

    @Test
    void aCrashedServerIsRestartedOnceOnNextUseThenReportedFailed() throws Exception {
        McpTestServers.RecordingListener listener = new McpTestServers.RecordingListener();
        McpServerSet set = McpServerSet.start(List.of(McpServerDefinition.fromClient(McpTestServers.everythingStdio("ev"))), null, listener);
        try {
            assertTrue(set.awaitReady(Duration.ofSeconds(30)));
            long first = set.pid("ev");
            kill(first);
            McpToolResult again = set.callTool("mcp__ev__echo", mapper().createObjectNode().put("message", "back"), Cancellation.NONE);
            assertFalse(again.isError(), again.text());
            assertEquals("Echo: back", again.text());
            long second = set.pid("ev");
            assertNotEquals(first, second);
            assertTrue(listener.changed.contains("ev"), listener.changed.toString());
            assertEquals(List.of(), listener.failures);

            kill(second);
            McpToolResult down = set.callTool("mcp__ev__echo", mapper().createObjectNode().put("message", "x"), Cancellation.NONE);
            assertTrue(down.isError());
            assertTrue(down.text().contains("stopped again after a restart"), down.text());
            assertEquals(1, listener.failures.size(), listener.failures.toString());
            assertTrue(listener.failures.get(0).startsWith("ev: it stopped again after a restart: exited with code"), listener.failures.get(0));
            assertEquals(McpServerState.FAILED, set.status().get(0).state());
            assertEquals(List.of(), set.tools(), "a failed server offers nothing");
            assertEquals(List.of(), descendantsRunning(EVERYTHING.toString()));
        } finally {
            set.close();
        }
    }

    @Test
    void aCallThatOutlastsItsTimeoutBecomesAnError() throws Exception {
        McpTimeouts timeouts = new McpTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(2));
        McpServerSet set = McpServerSet.start(List.of(McpServerDefinition.fromClient(McpTestServers.everythingStdio("slow"))), null,
                timeouts, McpServerSet.Listener.NONE);
        try {
            assertTrue(set.awaitReady(Duration.ofSeconds(30)));
            long t0 = System.nanoTime();
            McpToolResult r = set.callTool("mcp__slow__trigger-long-running-operation",
                    mapper().createObjectNode().put("duration", 20).put("steps", 20), Cancellation.NONE);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(r.isError());
            assertEquals("MCP tool mcp__slow__trigger-long-running-operation failed: the tool call got no answer within 1 s", r.text());
            assertTrue(ms < 15_000, "gave up after " + ms + " ms, long before the 20 s call would end");
            assertEquals("Echo: ok", set.callTool("mcp__slow__echo", mapper().createObjectNode().put("message", "ok"), Cancellation.NONE).text());
        } finally {
            set.close();
        }
    }

    @Test
    void awaitReadyDoesNotWaitForASlowServerWhichJoinsLater() throws Exception {
        String node = requireNode();
        String script = "sleep 2; exec \"" + node + "\" \"" + EVERYTHING + "\" stdio";
        McpTestServers.RecordingListener listener = new McpTestServers.RecordingListener();
        McpServerSet set = McpServerSet.start(List.of(McpServerDefinition.fromClient(stdio("late", "sh", List.of("-c", script), List.of()))),
                null, listener);
        try {
            long t0 = System.nanoTime();
            assertFalse(set.awaitReady(Duration.ofMillis(500)));
            assertTrue((System.nanoTime() - t0) / 1_000_000 < 1_500);
            assertEquals(List.of(), set.tools());
            assertEquals(McpServerState.STARTING, set.status().get(0).state());
            assertTrue(set.awaitReady(Duration.ofSeconds(30)));
            assertTrue(listener.ready.contains("late"));
            assertTrue(set.tool("mcp__late__echo").isPresent());
        } finally {
            set.close();
        }
    }

    @Test
    void closingWhileAServerIsStillStartingLeavesNoProcess() throws Exception {
        String marker = marker();
        String script = "sleep 300." + marker + "; exec \"" + requireNode() + "\" \"" + EVERYTHING + "\" stdio";
        McpTestServers.RecordingListener listener = new McpTestServers.RecordingListener();
        McpServerSet set = McpServerSet.start(List.of(McpServerDefinition.fromClient(stdio("slow", "sh", List.of("-c", script), List.of()))),
                null, listener);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (descendantsRunning("sleep 300." + marker).isEmpty() && System.nanoTime() < deadline) Thread.sleep(10);
        assertFalse(descendantsRunning("sleep 300." + marker).isEmpty(), "the server is starting");
        Thread.sleep(800); // its client is built and waits for the answer to initialize
        set.close();
        assertEquals(List.of(), awaitNoDescendants("sleep 300." + marker, Duration.ofSeconds(20)));
        assertEquals(List.of(), awaitNoDescendants(EVERYTHING.toString(), Duration.ofSeconds(20)));
        assertEquals(McpServerState.STOPPED, set.status().get(0).state());
        assertEquals(List.of(), listener.failures, "a server the session stopped is not reported as failed");
    }

    private static void kill(long pid) throws Exception {
        ProcessHandle p = ProcessHandle.of(pid).orElseThrow();
        p.destroyForcibly();
        p.onExit().get();
    }
}
