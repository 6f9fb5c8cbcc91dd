package cn.agentao.agent.net;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.testing.TestCertificates;
import cn.agentao.agent.testing.TinyProxy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The real agent behind a real proxy (tinyproxy, started per test) and in front of TLS servers whose certificate a
 * test CA signed. Servers listen on this machine's own name ({@link TestCertificates#localName()}), which is not a
 * loopback name, so the agent sends its requests for them to the proxy, and the proxy (on this machine) reaches them.
 */
class ProxyIT {
    static final String HOST = TestCertificates.localName();

    @TempDir
    Path dir;
    final List<AutoCloseable> running = new ArrayList<>();
    AgentProcess agent;
    String sessionId;

    @AfterEach
    void stop() throws Exception {
        try {
            if (agent != null) assertEquals(List.of(), agent.violations(), "nothing but protocol on stdout");
        } finally {
            for (AutoCloseable c : running.reversed()) c.close();
        }
    }

    private <T extends AutoCloseable> T keep(T resource) {
        running.add(resource);
        return resource;
    }

    private TinyProxy proxy(String user, String password) throws Exception {
        return keep(TinyProxy.start(dir.resolve("proxy"), user, password));
    }

    private FakeModelServer model(boolean tls) {
        return keep(FakeModelServer.start(TestCertificates.localAddress(), 0, tls ? TestCertificates.get().serverContext() : null));
    }

    private static Map<String, String> modelEnvironment(String baseUrl) {
        Map<String, String> env = new HashMap<>();
        env.put("LLM_PROVIDER", "OPENAI");
        env.put("OPENAI_BASE_URL", baseUrl);
        env.put("OPENAI_API_KEY", FakeModelServer.API_KEY);
        env.put("OPENAI_MODEL", FakeModelServer.MODEL);
        return env;
    }

    /** Starts the agent with {@code env}, answers permission questions with "allow once", opens a session. */
    private void startAgent(Map<String, String> env) throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Map<String, String> all = new HashMap<>(env);
        all.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        agent = keep(AgentProcess.start(all, "--acp", "--log-level", "debug"));
        agent.onClientRequest("session/request_permission", p -> {
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
            return r;
        });
        assertTrue(agent.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        JsonNode created = agent.call("session/new", Json.object().put("cwd", ws.toString())
                .set("mcpServers", Json.mapper().createArrayNode()));
        assertTrue(created.has("result"), created.toString());
        sessionId = created.path("result").path("sessionId").asText();
    }

    /** Sends a prompt; returns what the agent wrote back (answers and error notices). */
    private String say(String text) throws Exception {
        ObjectNode p = Json.object().put("sessionId", sessionId);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        JsonNode r = agent.call("session/prompt", p, Duration.ofSeconds(60));
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        return agent.updates(sessionId).stream()
                .filter(u -> "agent_message_chunk".equals(u.path("sessionUpdate").asText()))
                .map(u -> u.path("content").path("text").asText()).collect(Collectors.joining());
    }

    // ---------------------------------------------------------------- the model

    @Test
    void theModelIsReachedThroughTheProxyFromTheLowerCaseVariable() throws Exception {
        TinyProxy proxy = proxy(null, null);
        FakeModelServer model = model(false);
        Map<String, String> env = modelEnvironment(model.baseUrl(HOST));
        env.put("http_proxy", proxy.url());
        startAgent(env);
        model.enqueue(Script.textReply("hello from behind the proxy"));
        assertTrue(say("hi").contains("hello from behind the proxy"));
        proxy.awaitRequest(("POST " + model.baseUrl(HOST) + "/chat/completions")::equals, Duration.ofSeconds(10));
        String via = model.lastRequest().header("via");
        assertTrue(via != null && via.contains("tinyproxy"), "the model server got the request from the proxy: via=" + via);
    }

    @Test
    void hostsInNoProxyGoDirect() throws Exception {
        TinyProxy proxy = proxy(null, null);
        FakeModelServer model = model(false);
        Map<String, String> env = modelEnvironment(model.baseUrl(HOST));
        env.put("HTTP_PROXY", proxy.url());
        env.put("NO_PROXY", "example.org, ." + HOST);
        startAgent(env);
        model.enqueue(Script.textReply("direct answer"));
        assertTrue(say("hi").contains("direct answer"));
        assertNull(model.lastRequest().header("via"), "not through a proxy");
        assertEquals(List.of(), proxy.requests());
    }

    @Test
    void aLoopbackModelIsNeverProxied() throws Exception {
        TinyProxy proxy = proxy(null, null);
        FakeModelServer model = keep(FakeModelServer.start());
        Map<String, String> env = modelEnvironment(model.baseUrl());
        env.put("HTTP_PROXY", proxy.url());
        env.put("HTTPS_PROXY", proxy.url());
        startAgent(env);
        model.enqueue(Script.textReply("local answer"));
        assertTrue(say("hi").contains("local answer"));
        assertNull(model.lastRequest().header("via"));
        assertEquals(List.of(), proxy.requests());
    }

    @Test
    void proxyCredentialsOpenTheTunnelToATlsModelAndGoNowhereElse() throws Exception {
        String password = "pw-" + UUID.randomUUID().toString().substring(0, 12);
        TinyProxy proxy = proxy("alice", password);
        FakeModelServer model = model(true);
        Map<String, String> env = modelEnvironment(model.baseUrl(HOST));
        env.put("HTTPS_PROXY", proxy.url("alice", password));
        env.put("SSL_CERT_FILE", TestCertificates.get().caPem().toString());
        startAgent(env);
        model.enqueue(Script.textReply("answer through the tunnel"));
        assertTrue(say("hi").contains("answer through the tunnel"));
        proxy.awaitRequest(("CONNECT " + HOST + ":" + model.port())::equals, Duration.ofSeconds(10));
        assertNull(model.lastRequest().header("proxy-authorization"), "the proxy's credentials never reach the model");
        assertFalse(agent.stderr().contains(password), "the proxy password is never logged (debug level)");
    }

    @Test
    void aProxyThatWantsCredentialsIsExplained() throws Exception {
        TinyProxy proxy = proxy("alice", "secret-" + UUID.randomUUID());
        FakeModelServer model = model(true);
        Map<String, String> env = modelEnvironment(model.baseUrl(HOST));
        env.put("HTTPS_PROXY", proxy.url());
        env.put("SSL_CERT_FILE", TestCertificates.get().caPem().toString());
        startAgent(env);
        String answer = say("hi");
        assertTrue(answer.contains("HTTP 407") && answer.contains("http://user:password@host:port"), answer);
        assertEquals(List.of(), model.requests());
    }

    @Test
    void aProxyThatIsDownIsNamedInTheError() throws Exception {
        FakeModelServer model = model(false);
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Map<String, String> env = modelEnvironment(model.baseUrl(HOST));
        env.put("HTTP_PROXY", "http://bob:hunter2-secret@127.0.0.1:" + closed);
        startAgent(env);
        String answer = say("hi");
        assertTrue(answer.contains("through the proxy http://***@127.0.0.1:" + closed + " from HTTP_PROXY (connection refused)"), answer);
        assertFalse(answer.contains("hunter2-secret") || agent.stderr().contains("hunter2-secret"), answer);
        assertEquals(List.of(), model.requests());
    }

    @Test
    void aTlsModelSignedByAnExtraCaNeedsSslCertFile() throws Exception {
        FakeModelServer model = model(true);
        startAgent(modelEnvironment(model.baseUrl(HOST)));
        String refused = say("hi");
        assertTrue(refused.contains("not signed by a trusted authority") && refused.contains("SSL_CERT_FILE"), refused);
        assertEquals(List.of(), model.requests());
        agent.close();

        Map<String, String> env = modelEnvironment(model.baseUrl(HOST));
        env.put("SSL_CERT_FILE", TestCertificates.get().caPem().toString());
        startAgent(env);
        model.enqueue(Script.textReply("trusted now"));
        assertTrue(say("hi").contains("trusted now"));
    }

    @Test
    void aProjectEnvFileCannotChooseTheProxyOrTheCas() throws Exception {
        TinyProxy proxy = proxy(null, null);
        FakeModelServer model = model(false);
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.writeString(ws.resolve(".env"), "HTTP_PROXY=" + proxy.url() + "\nhttp_proxy=" + proxy.url()
                + "\nHTTPS_PROXY=" + proxy.url() + "\nSSL_CERT_FILE=" + TestCertificates.get().caPem() + "\n");
        startAgent(modelEnvironment(model.baseUrl(HOST)));
        model.enqueue(Script.textReply("direct"));
        assertTrue(say("hi").contains("direct"));
        assertNull(model.lastRequest().header("via"));
        assertEquals(List.of(), proxy.requests(), "a repository's .env does not route the agent's traffic");
    }

    // ---------------------------------------------------------------- web_fetch

    /**
     * A page server on this machine's name (TLS with the test CA's certificate when {@code tls}): /page answers text,
     * /to-metadata redirects to the metadata endpoint. {@code seen} gets "path via=… auth=…" per request.
     */
    private String pages(List<String> seen, boolean tls) throws IOException {
        InetSocketAddress bind = new InetSocketAddress(TestCertificates.localAddress(), 0);
        HttpServer server;
        if (tls) {
            HttpsServer https = HttpsServer.create(bind, 8);
            https.setHttpsConfigurator(new HttpsConfigurator(TestCertificates.get().serverContext()));
            server = https;
        } else {
            server = HttpServer.create(bind, 8);
        }
        server.createContext("/", exchange -> {
            seen.add(exchange.getRequestURI().getPath() + " via=" + exchange.getRequestHeaders().getFirst("Via")
                    + " auth=" + exchange.getRequestHeaders().getFirst("Proxy-Authorization"));
            if (exchange.getRequestURI().getPath().equals("/to-metadata")) {
                exchange.getResponseHeaders().add("Location", "http://169.254.169.254/latest/meta-data/");
                exchange.sendResponseHeaders(302, -1);
            } else {
                byte[] body = "the proxied page says hello".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "text/plain");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
        running.add(() -> server.stop(0));
        return (tls ? "https://" : "http://") + HOST + ":" + server.getAddress().getPort();
    }

    /** A fresh agent (loopback model, {@code env} added) whose model calls web_fetch on each URL; what the model got back. */
    private String fetch(Map<String, String> env, String... urls) throws Exception {
        FakeModelServer model = keep(FakeModelServer.start());
        Map<String, String> all = modelEnvironment(model.baseUrl());
        all.putAll(env);
        startAgent(all);
        Script calls = Script.reply();
        for (int i = 0; i < urls.length; i++) calls.toolCall("f" + i, "web_fetch", Json.object().put("url", urls[i]).toString());
        model.enqueue(calls, Script.textReply("done"));
        say("fetch");
        return model.lastRequest().messages().toString();
    }

    @Test
    void webFetchGoesThroughTheProxy() throws Exception {
        TinyProxy proxy = proxy(null, null);
        List<String> seen = new CopyOnWriteArrayList<>();
        String url = pages(seen, false) + "/page";
        // this machine's own address is private or loopback: allowed here, the proxy is what is tested
        String sent = fetch(Map.of("HTTP_PROXY", proxy.url(), "AGENT_ALLOW_PRIVATE_NETWORK", "1"), url);
        assertTrue(sent.contains("the proxied page says hello"), sent);
        proxy.awaitRequest(("GET " + url)::equals, Duration.ofSeconds(10));
        assertEquals(1, seen.size(), seen.toString());
        assertTrue(seen.get(0).contains("tinyproxy"), seen.toString());
    }

    @Test
    void webFetchOverTlsTunnelsThroughAnAuthenticatingProxy() throws Exception {
        String password = "pw-" + UUID.randomUUID().toString().substring(0, 12);
        TinyProxy proxy = proxy("alice", password);
        List<String> seen = new CopyOnWriteArrayList<>();
        String base = pages(seen, true);
        String url = base + "/page";
        Map<String, String> env = new HashMap<>(Map.of("AGENT_ALLOW_PRIVATE_NETWORK", "1",
                "SSL_CERT_FILE", TestCertificates.get().caPem().toString()));

        env.put("HTTPS_PROXY", proxy.url());
        String refused = fetch(env, url);
        assertTrue(refused.contains("the proxy asks for credentials (HTTP 407)"), refused);
        assertEquals(List.of(), seen);

        env.put("HTTPS_PROXY", proxy.url("alice", password));
        String sent = fetch(env, url);
        assertTrue(sent.contains("the proxied page says hello"), sent);
        proxy.awaitRequest(("CONNECT " + base.substring("https://".length()))::equals, Duration.ofSeconds(10));
        assertEquals(List.of("/page via=null auth=null"), seen, "tunnelled: the page server never sees the proxy's credentials");
        assertFalse(agent.stderr().contains(password));
    }

    @Test
    void theGuardStillRefusesPrivateTargetsWhenAProxyWouldCarryThem() throws Exception {
        TinyProxy proxy = proxy(null, null);
        List<String> seen = new CopyOnWriteArrayList<>();
        String url = pages(seen, false) + "/page";
        String sent = fetch(Map.of("HTTP_PROXY", proxy.url(), "HTTPS_PROXY", proxy.url()),
                url, "http://10.1.2.3/admin", "https://169.254.169.254/latest/meta-data/");
        assertTrue(sent.contains("Refused to fetch " + url), sent);
        assertTrue(sent.contains("Refused to fetch http://10.1.2.3/admin"), sent);
        assertTrue(sent.contains("cloud metadata endpoint"), sent);
        assertEquals(List.of(), seen, "the page server was never reached");
        assertEquals(List.of(), proxy.requests(), "a refused fetch is not handed to the proxy either");
    }

    @Test
    void eachRedirectHopIsJudgedAlsoThroughTheProxy() throws Exception {
        TinyProxy proxy = proxy(null, null);
        String url = pages(new CopyOnWriteArrayList<>(), false) + "/to-metadata";
        String sent = fetch(Map.of("HTTP_PROXY", proxy.url(), "AGENT_ALLOW_PRIVATE_NETWORK", "1"), url);
        assertTrue(sent.contains("Refused to fetch http://169.254.169.254/latest/meta-data/ (redirected from " + url + ")"), sent);
        proxy.awaitRequest(("GET " + url)::equals, Duration.ofSeconds(10));
        assertEquals(List.of("GET " + url), proxy.requests(), "the proxy was never asked for the metadata endpoint");
    }
}
