package cn.agentao.agent.tools.web;

import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.tools.ToolTestSupport;
import cn.agentao.agent.util.CancellationSource;

import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.permission.PermissionRequest;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static cn.agentao.agent.tools.ToolTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class WebFetchToolTest {
    @TempDir
    Path dir;
    HttpServer server;
    String base;
    final AtomicInteger requests = new AtomicInteger();
    final CountDownLatch releaseSlow = new CountDownLatch(1);
    final ExecutorService handlers = Executors.newCachedThreadPool();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(handlers);
        base = "http://127.0.0.1:" + server.getAddress().getPort();
        server.createContext("/", this::handle);
        server.start();
    }

    @AfterEach
    void stop() {
        releaseSlow.countDown();
        server.stop(0);
        handlers.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        requests.incrementAndGet();
        String path = ex.getRequestURI().getPath();
        switch (path) {
            case "/page" -> send(ex, 200, "text/html; charset=utf-8", """
                    <!doctype html><html><head><title>Test &amp; Page</title><style>body{color:red}</style>
                    <script>var secret = 1;</script></head><body>
                    <h1>Hello</h1><p>First   paragraph with <a href="/docs/a.html">a link</a> &mdash; done.</p>
                    <ul><li>one</li><li>two</li></ul></body></html>""");
            case "/plain" -> send(ex, 200, "text/plain", "just text\n");
            case "/redirect-local" -> redirect(ex, "/page");
            case "/redirect-metadata" -> redirect(ex, "http://169.254.169.254/latest/meta-data/");
            case "/redirect-unspecified" -> redirect(ex, "http://0.0.0.0:" + server.getAddress().getPort() + "/plain");
            case "/redirect-file" -> redirect(ex, "file:///etc/passwd");
            case "/loop" -> redirect(ex, "/loop");
            case "/binary" -> send(ex, 200, "image/png", "\u0089PNG\u0000\u0000data");
            case "/big" -> send(ex, 200, "text/plain", "0123456789".repeat(300_000));
            case "/missing" -> send(ex, 404, "text/plain", "no such page");
            case "/slow" -> {
                try {
                    releaseSlow.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException ignored) {
                }
                send(ex, 200, "text/plain", "late");
            }
            default -> send(ex, 500, "text/plain", "unexpected " + path);
        }
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(type.equals("image/png") ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        } catch (IOException ignored) {
            // the client went away
        }
    }

    private static void redirect(HttpExchange ex, String location) throws IOException {
        ex.getResponseHeaders().add("Location", location);
        ex.sendResponseHeaders(302, -1);
        ex.close();
    }

    private ToolResult fetch(NetworkGuard guard, String url) throws Exception {
        return fetch(guard, url, ToolTestSupport.context(dir));
    }

    private ToolResult fetch(NetworkGuard guard, String url, ToolContext ctx) throws Exception {
        return new WebFetchTool(guard).prepare(json("{\"url\":\"" + url + "\"}"), ctx).run(ToolProgress.NONE);
    }

    private static NetworkGuard privateAllowed() {
        return new NetworkGuard(NetworkGuard.HostResolver.SYSTEM, true);
    }

    @Test
    void theDefaultGuardRefusesTheLocalServerWithoutConnecting() throws Exception {
        ToolResult r = fetch(NetworkGuard.standard(), base + "/plain");
        assertTrue(r.isError());
        assertTrue(r.forModel().contains("loopback"), r.forModel());
        assertEquals(0, requests.get(), "no request reached the server");
    }

    @Test
    void fetchesAndConvertsHtmlWhenPrivateNetworkIsAllowed() throws Exception {
        ToolResult r = fetch(privateAllowed(), base + "/page");
        assertFalse(r.isError(), r.forModel());
        String text = r.forModel();
        assertTrue(text.startsWith("URL: " + base + "/page\nStatus: 200\nContent-Type: text/html\n\n"), text);
        assertTrue(text.contains("# Test & Page"), text);
        assertTrue(text.contains("# Hello"), text);
        assertTrue(text.contains("First paragraph with [a link](" + base + "/docs/a.html) — done."), text);
        assertTrue(text.contains("- one\n- two"), text);
        assertFalse(text.contains("secret") || text.contains("color:red"), text);
    }

    @Test
    void followsRelativeRedirectsCheckingEachHop() throws Exception {
        ToolResult r = fetch(privateAllowed(), base + "/redirect-local");
        assertFalse(r.isError(), r.forModel());
        assertTrue(r.forModel().startsWith("URL: " + base + "/page\n"), r.forModel());
    }

    @Test
    void refusesARedirectToTheMetadataEndpoint() throws Exception {
        ToolResult r = fetch(privateAllowed(), base + "/redirect-metadata");
        assertTrue(r.isError());
        assertTrue(r.forModel().contains("169.254.169.254") && r.forModel().contains("redirected from"), r.forModel());
    }

    @Test
    void refusesARedirectToTheUnspecifiedAddressAndToOtherSchemes() throws Exception {
        ToolResult r = fetch(privateAllowed(), base + "/redirect-unspecified");
        assertTrue(r.isError());
        assertTrue(r.forModel().contains("unspecified"), r.forModel());
        ToolResult file = fetch(privateAllowed(), base + "/redirect-file");
        assertTrue(file.isError());
        assertTrue(file.forModel().contains("only http and https"), file.forModel());
    }

    @Test
    void stopsRedirectLoops() throws Exception {
        ToolResult r = fetch(privateAllowed(), base + "/loop");
        assertTrue(r.isError());
        assertTrue(r.forModel().contains("Too many redirects"), r.forModel());
        assertEquals(WebFetchTool.MAX_REDIRECTS + 1, requests.get());
    }

    @Test
    void refusesBinaryAndCutsLargeBodies() throws Exception {
        ToolResult bin = fetch(privateAllowed(), base + "/binary");
        assertTrue(bin.isError());
        assertTrue(bin.forModel().contains("image/png"), bin.forModel());
        ToolResult big = fetch(privateAllowed(), base + "/big");
        assertFalse(big.isError());
        assertTrue(big.forModel().contains("[Content cut"), "notice");
        assertTrue(big.forModel().length() < WebFetchTool.MAX_CHARS + 500);
        assertTrue(big.rawOutput().get("truncated").asBoolean());
    }

    @Test
    void reportsHttpErrors() throws Exception {
        ToolResult r = fetch(privateAllowed(), base + "/missing");
        assertTrue(r.isError());
        assertTrue(r.forModel().contains("Status: 404") && r.forModel().contains("no such page"), r.forModel());
    }

    @Test
    void cancellationStopsAHangingRequest() throws Exception {
        CancellationSource cancel = new CancellationSource();
        SimpleToolContext ctx = ToolTestSupport.context(dir, cancel);
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException ignored) {
            }
            cancel.cancel();
        });
        long start = System.nanoTime();
        assertThrows(InterruptedException.class, () -> fetch(privateAllowed(), base + "/slow", ctx));
        // the slow page answers after 20 s: returning long before that is the cancel at work, however busy the machine
        assertTrue(System.nanoTime() - start < 15_000_000_000L, "returned before the slow page would have answered");
    }

    @Test
    void preparesAFetchPermissionAndRejectsOtherSchemes() throws Exception {
        ToolInvocation inv = new WebFetchTool(NetworkGuard.standard())
                .prepare(json("{\"url\":\"https://example.com/x\"}"), ToolTestSupport.context(dir));
        assertEquals(new PermissionRequest.FetchUrl("web_fetch", "https://example.com/x"), inv.permission());
        assertEquals("Fetch https://example.com/x", inv.title());
        assertThrows(ToolException.class, () -> new WebFetchTool(NetworkGuard.standard())
                .prepare(json("{\"url\":\"ftp://example.com/\"}"), ToolTestSupport.context(dir)));
        assertThrows(ToolException.class, () -> new WebFetchTool(NetworkGuard.standard())
                .prepare(json("{\"url\":\"http://exa mple.com/\"}"), ToolTestSupport.context(dir)));
    }
}
