package cn.agentao.agent.connect.a2a;

import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A remote agent's bearer token goes to the address the user configured and nowhere else. */
class A2aClientTest {
    static final String TOKEN = "remote-agent-token-5c1d";

    final List<HttpServer> servers = new CopyOnWriteArrayList<>();
    /** Authorization headers the "elsewhere" server received (null for a request without one). */
    final List<String> elsewhereSaw = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(s -> s.stop(0));
    }

    HttpServer server() throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        servers.add(s);
        s.start();
        return s;
    }

    URI elsewhere() throws IOException {
        HttpServer s = server();
        s.createContext("/", ex -> {
            elsewhereSaw.add(ex.getRequestHeaders().getFirst("Authorization"));
            ex.sendResponseHeaders(500, -1);
            ex.close();
        });
        return URI.create("http://127.0.0.1:" + s.getAddress().getPort() + "/");
    }

    @Test
    void anEndpointOnAnotherOriginNeverGetsTheToken() throws Exception {
        URI other = elsewhere();
        HttpServer configured = server();
        A2aClient client = new A2aClient(URI.create("http://127.0.0.1:" + configured.getAddress().getPort()), List.of(), TOKEN, NetworkGuard.standard());
        A2aClientException e = assertThrows(A2aClientException.class,
                () -> client.stream(A2aClient.Endpoint.v03(other), Json.object(), ev -> { }, Cancellation.NONE));
        assertTrue(e.getMessage().contains("nothing is sent there"), e.getMessage());
        client.cancel(A2aClient.Endpoint.v03(other), "task-1");
        assertEquals(List.of(), elsewhereSaw, "nothing was sent to the other origin");
    }

    @Test
    void aRedirectIsNotFollowedWithTheToken() throws Exception {
        URI other = elsewhere();
        HttpServer configured = server();
        configured.createContext("/", ex -> {
            ex.getResponseHeaders().add("Location", other + "card.json");
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        A2aClient client = new A2aClient(URI.create("http://127.0.0.1:" + configured.getAddress().getPort()), List.of(), TOKEN, NetworkGuard.standard());
        A2aClientException e = assertThrows(A2aClientException.class, () -> client.card(Duration.ofSeconds(10)));
        assertTrue(e.getMessage().contains("redirects are not followed") && e.getMessage().contains(other.toString()), e.getMessage());
        assertEquals(List.of(), elsewhereSaw, "the redirect's target was never asked");
    }

    @Test
    void theSameOriginIsSchemeHostAndPort() {
        assertTrue(A2aClient.sameOrigin(URI.create("https://a.example/x"), URI.create("https://A.example:443/")));
        assertTrue(!A2aClient.sameOrigin(URI.create("http://a.example/"), URI.create("https://a.example/")));
        assertTrue(!A2aClient.sameOrigin(URI.create("https://a.example:8443/"), URI.create("https://a.example/")));
        assertTrue(!A2aClient.sameOrigin(URI.create("https://evil.example/"), URI.create("https://a.example/")));
    }
}
