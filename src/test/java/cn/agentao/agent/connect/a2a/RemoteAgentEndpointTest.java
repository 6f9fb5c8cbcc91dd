package cn.agentao.agent.connect.a2a;

import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.core.tool.FileAccess;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.UserQuestions;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A remote agent's card names the endpoint our messages go to: a hostile card (another origin, the cloud metadata
 * address, a name that resolves to this machine) gets nothing; the origins the user configured get the message.
 * Real HTTP servers on loopback serve the cards and record what reaches them.
 */
class RemoteAgentEndpointTest {
    static final String TOKEN = "remote-token-77a1";

    final List<HttpServer> servers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(s -> s.stop(0));
    }

    /** A server that serves {@code card} (with {@code PORT} replaced by its own port) and answers POSTs with a message. */
    final class Agent {
        final HttpServer http;
        final List<String> posts = new CopyOnWriteArrayList<>();
        /** Each POST's path and A2A-Version header. */
        final List<String> routes = new CopyOnWriteArrayList<>();
        volatile String card = "{}";

        Agent() throws IOException {
            http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            servers.add(http);
            http.createContext("/", this::handle);
            http.start();
        }

        String url() { return "http://127.0.0.1:" + http.getAddress().getPort(); }

        private void handle(HttpExchange ex) throws IOException {
            try (ex) {
                if (ex.getRequestMethod().equals("GET")) {
                    send(ex, card);
                    return;
                }
                posts.add(ex.getRequestHeaders().getFirst("Authorization") + " " + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                routes.add(ex.getRequestURI().getPath() + " " + ex.getRequestHeaders().getFirst("A2A-Version"));
                if (ex.getRequestURI().getPath().endsWith("/message:stream")) { // HTTP+JSON 1.0: a bare SendMessageResponse
                    send(ex, "{\"message\":{\"messageId\":\"m\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"answer from " + url() + "\"}]}}");
                    return;
                }
                send(ex, "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{\"kind\":\"message\",\"messageId\":\"m\",\"role\":\"agent\","
                        + "\"parts\":[{\"kind\":\"text\",\"text\":\"answer from " + url() + "\"}]}}");
            }
        }

        private static void send(HttpExchange ex, String body) throws IOException {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
        }
    }

    static String card(String url) {
        return Json.object().put("name", "remote").put("description", "d").put("url", url).toString();
    }

    /** Calls the tool {@code a2a__remote} configured from {@code entry} (a2aAgents.remote), as a session would. */
    static ToolResult call(ObjectNode entry, NetworkGuard guard) throws Exception {
        Path dir = Files.createTempDirectory("a2a-endpoint");
        ObjectNode root = Json.object();
        root.putObject("a2aAgents").set("remote", entry);
        Files.writeString(dir.resolve("config.json"), root.toString());
        List<String> problems = new CopyOnWriteArrayList<>();
        List<A2aAgentConfig> configs = A2aAgentConfig.read(dir.resolve("config.json"), problems);
        assertEquals(List.of(), problems);
        RemoteAgentTool tool = new RemoteAgentTool(configs.getFirst(), Map.of("REMOTE_TOKEN", TOKEN), guard);
        return tool.prepare(Json.object().put("message", "the model's message"), context(dir)).run(ToolProgress.NONE);
    }

    static ToolContext context(Path cwd) {
        return new ToolContext() {
            @Override public String sessionId() { return "s1"; }
            @Override public Path cwd() { return cwd; }
            @Override public List<Path> roots() { return List.of(cwd); }
            @Override public FileAccess files() { return null; }
            @Override public CommandRunner commands() { return null; }
            @Override public UserQuestions questions() { return null; }
            @Override public Cancellation cancellation() { return Cancellation.NONE; }
        };
    }

    static ObjectNode entry(Agent configured, String... allowedEndpoints) {
        ObjectNode e = Json.object().put("url", configured.url()).put("tokenEnv", "REMOTE_TOKEN");
        var list = e.putArray("allowedEndpoints");
        for (String a : allowedEndpoints) list.add(a);
        return e;
    }

    @Test
    void aCardNamingAnotherOriginGetsNothingEvenWithoutAToken() throws Exception {
        Agent configured = new Agent();
        Agent elsewhere = new Agent();
        configured.card = card(elsewhere.url() + "/");
        ObjectNode noToken = Json.object().put("url", configured.url());
        ToolResult r = call(noToken, NetworkGuard.standard());
        assertTrue(r.isError(), r.forModel());
        assertTrue(r.forModel().contains("not on " + configured.url()) && r.forModel().contains("allowedEndpoints"), r.forModel());
        assertEquals(List.of(), elsewhere.posts, "the model's message went nowhere");
        assertEquals(List.of(), configured.posts);
    }

    @Test
    void aCardNamingTheCloudMetadataAddressGetsNothingEvenWhenListed() throws Exception {
        Agent configured = new Agent();
        configured.card = card("http://169.254.169.254/latest/");
        ToolResult r = call(entry(configured, "http://169.254.169.254"), new NetworkGuard(NetworkGuard.HostResolver.SYSTEM, true));
        assertTrue(r.isError(), r.forModel());
        assertTrue(r.forModel().contains("cloud metadata"), r.forModel());
        assertFalse(r.forModel().contains("connection failed"), "refused before connecting: " + r.forModel());
    }

    @Test
    void aListedNameThatResolvesToThisMachineIsGuardedLikeWebFetch() throws Exception {
        Agent configured = new Agent();
        Agent internal = new Agent();
        String byName = "http://agent.internal.test:" + internal.http.getAddress().getPort();
        configured.card = card(byName + "/");
        NetworkGuard guard = new NetworkGuard(host -> List.of(InetAddress.getByName("127.0.0.1")), false);
        ToolResult r = call(entry(configured, byName), guard);
        assertTrue(r.isError(), r.forModel());
        assertTrue(r.forModel().contains("loopback"), r.forModel());
        assertEquals(List.of(), internal.posts);
    }

    @Test
    void aListedEndpointOnLoopbackGetsTheMessageAndTheToken() throws Exception {
        Agent configured = new Agent();
        Agent listed = new Agent();
        configured.card = card(listed.url() + "/");
        ToolResult r = call(entry(configured, listed.url()), NetworkGuard.standard());
        assertFalse(r.isError(), r.forModel());
        assertEquals("answer from " + listed.url(), r.forModel());
        assertEquals(1, listed.posts.size(), listed.posts.toString());
        assertTrue(listed.posts.getFirst().startsWith("Bearer " + TOKEN + " ") && listed.posts.getFirst().contains("the model's message"),
                listed.posts.toString());
    }

    @Test
    void aJsonRpcInterfaceOnTheConfiguredOriginIsUsedWhenTheUrlIsElsewhere() throws Exception {
        Agent configured = new Agent();
        Agent elsewhere = new Agent();
        ObjectNode c = Json.object().put("name", "remote").put("description", "d").put("url", elsewhere.url() + "/");
        c.putArray("additionalInterfaces").addObject().put("url", configured.url() + "/").put("transport", "JSONRPC");
        configured.card = c.toString();
        ToolResult r = call(entry(configured), NetworkGuard.standard());
        assertEquals("answer from " + configured.url(), r.forModel());
        assertEquals(List.of(), elsewhere.posts);
        assertEquals(1, configured.posts.size());
    }

    @Test
    void a10InterfaceOnAnotherOriginIsPassedOverForTheNextOneOnTheConfiguredOrigin() throws Exception {
        Agent configured = new Agent();
        Agent elsewhere = new Agent();
        ObjectNode c = Json.object().put("name", "remote").put("description", "d").put("url", configured.url() + "/");
        var interfaces = c.putArray("supportedInterfaces");
        interfaces.addObject().put("url", elsewhere.url() + "/").put("protocolBinding", "JSONRPC").put("protocolVersion", "1.0");
        interfaces.addObject().put("url", configured.url() + "/a2a/v1").put("protocolBinding", "HTTP+JSON").put("protocolVersion", "1.0");
        configured.card = c.toString();
        ToolResult r = call(entry(configured), NetworkGuard.standard());
        assertEquals("answer from " + configured.url(), r.forModel());
        assertEquals(List.of(), elsewhere.posts, "the preferred JSON-RPC 1.0 interface elsewhere got nothing, the token included");
        assertEquals(List.of("/a2a/v1/message:stream 1.0"), configured.routes, "HTTP+JSON 1.0 on the configured origin, before 0.3's url");
        assertTrue(configured.posts.getFirst().startsWith("Bearer " + TOKEN + " ") && configured.posts.getFirst().contains("\"role\":\"ROLE_USER\""),
                configured.posts.toString());
    }

    @Test
    void aBadAllowedEndpointIsReported() throws Exception {
        Path dir = Files.createTempDirectory("a2a-endpoint");
        Files.writeString(dir.resolve("config.json"),
                "{\"a2aAgents\":{\"r\":{\"url\":\"http://127.0.0.1:1\",\"allowedEndpoints\":[\"ftp://x\", \"https://ok.example\"]}}}");
        List<String> problems = new CopyOnWriteArrayList<>();
        List<A2aAgentConfig> configs = A2aAgentConfig.read(dir.resolve("config.json"), problems);
        assertEquals(List.of(URI.create("https://ok.example")), configs.getFirst().allowedEndpoints());
        assertTrue(problems.size() == 1 && problems.getFirst().contains("ftp://x"), problems.toString());
    }
}
