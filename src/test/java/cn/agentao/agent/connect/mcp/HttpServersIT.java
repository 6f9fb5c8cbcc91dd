package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.tool.McpServerConfig.NameValue;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;
import cn.agentao.agent.util.CancelledException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static cn.agentao.agent.connect.mcp.McpTestServers.http;
import static cn.agentao.agent.util.Json.mapper;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * server-everything over streamable HTTP and over SSE, each on a free loopback port, plus an HTTP server
 * that is not there (with a secret header that must not show in the reason).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpServersIT {
    private static final String SECRET = "Bearer sk-test-0123456789abcdef";

    private McpTestServers.RunningHttpServer streamable;
    private McpTestServers.RunningHttpServer sse;
    private McpServerSet set;
    private final McpTestServers.RecordingListener listener = new McpTestServers.RecordingListener();

    @BeforeAll
    void start() throws Exception {
        streamable = McpTestServers.startEverythingHttp("streamableHttp");
        sse = McpTestServers.startEverythingHttp("sse");
        int closedPort = McpTestServers.freePort();
        set = McpServerSet.start(List.of(
                McpServerDefinition.fromClient(http("http", "web", streamable.url("/mcp"), List.of(new NameValue("X-Test", "yes")))),
                McpServerDefinition.fromClient(http("sse", "legacy", sse.url("/sse"), List.of())),
                McpServerDefinition.fromClient(http("http", "down", "http://127.0.0.1:" + closedPort + "/mcp?token=abc123secret",
                        List.of(new NameValue("Authorization", SECRET))))), null, listener);
        assertTrue(set.awaitReady(Duration.ofSeconds(30)), "every server settles");
    }

    @AfterAll
    void stop() {
        if (set != null) set.close();
        if (streamable != null) streamable.close();
        if (sse != null) sse.close();
    }

    @Test
    void bothTransportsListToolsAndPrompts() {
        List<String> names = set.tools().stream().map(McpTool::name).toList();
        assertTrue(names.contains("mcp__web__echo"), names.toString());
        assertTrue(names.contains("mcp__legacy__echo"), names.toString());
        assertTrue(set.commands().stream().anyMatch(c -> c.name().equals("mcp.web.simple-prompt")));
        assertTrue(set.commands().stream().anyMatch(c -> c.name().equals("mcp.legacy.args-prompt")));
    }

    @Test
    void streamableHttpCallsWork() throws Exception {
        McpToolResult echo = set.callTool("mcp__web__echo", mapper().createObjectNode().put("message", "over http"), Cancellation.NONE);
        assertFalse(echo.isError(), echo.text());
        assertEquals("Echo: over http", echo.text());
        McpToolResult image = set.callTool("mcp__web__get-tiny-image", mapper().createObjectNode(), Cancellation.NONE);
        assertTrue(image.content().stream().anyMatch(b -> b instanceof ContentBlock.Image i && "image/png".equals(i.mimeType())),
                image.content().toString());
        assertEquals("What's weather in Oslo?", set.getPrompt("mcp.web.args-prompt", "Oslo", Cancellation.NONE));
    }

    @Test
    void sseCallsWork() throws Exception {
        McpToolResult echo = set.callTool("mcp__legacy__echo", mapper().createObjectNode().put("message", "over sse"), Cancellation.NONE);
        assertFalse(echo.isError(), echo.text());
        assertEquals("Echo: over sse", echo.text());
    }

    @Test
    void cancellingAnHttpCallReturnsPromptly() throws Exception {
        CancellationSource cancel = new CancellationSource();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            timer.schedule(cancel::cancel, 300, TimeUnit.MILLISECONDS);
            long t0 = System.nanoTime();
            assertThrows(CancelledException.class, () -> set.callTool("mcp__web__trigger-long-running-operation",
                    mapper().createObjectNode().put("duration", 30).put("steps", 30), cancel));
            assertTrue((System.nanoTime() - t0) / 1_000_000 < 2_000);
        } finally {
            timer.shutdownNow();
        }
        assertEquals("Echo: after", set.callTool("mcp__web__echo", mapper().createObjectNode().put("message", "after"), Cancellation.NONE).text());
    }

    @Test
    void anUnreachableServerIsReportedWithoutItsSecrets() throws InterruptedException {
        // the set tells its listener on another thread: readiness can be seen a moment before the callback ran
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!listener.ready.containsAll(List.of("web", "legacy")) && System.nanoTime() < deadline) Thread.sleep(10);
        assertEquals(1, listener.failures.size(), listener.failures.toString());
        String failure = listener.failures.get(0);
        assertTrue(failure.startsWith("down: could not start: "), failure);
        assertTrue(failure.contains("http://127.0.0.1:"), failure);
        assertFalse(failure.contains("sk-test"), failure);
        assertFalse(failure.contains("abc123secret"), failure);
        assertTrue(listener.ready.containsAll(List.of("web", "legacy")), listener.ready.toString());
    }
}
