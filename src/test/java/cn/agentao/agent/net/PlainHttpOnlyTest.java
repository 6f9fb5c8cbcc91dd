package cn.agentao.agent.net;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/** A client built for plain HTTP (no TLS set-up) talks to an http:// server, and refuses https:// clearly. */
class PlainHttpOnlyTest {
    private static final Network NETWORK = new Network(Map.of(), List.of());

    private static HttpServer serve(HttpServer server, AtomicInteger hits) {
        server.createContext("/", exchange -> {
            hits.incrementAndGet();
            byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return server;
    }

    @Test
    void plainHttpClientReachesAnHttpServer() throws Exception {
        HttpServer server = serve(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), new AtomicInteger());
        try {
            HttpClient client = NETWORK.configure(HttpClient.newBuilder(), false).build();
            URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode());
            assertEquals("hello", response.body());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void plainHttpClientRefusesTlsWithAClearErrorAndSendsNothing() throws Exception {
        AtomicInteger hits = new AtomicInteger();
        // Any listening server: the refusal comes before a byte of TLS or HTTP is sent.
        HttpServer server = serve(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0), hits);
        try {
            HttpClient client = NETWORK.configure(HttpClient.newBuilder(), false).build();
            URI uri = URI.create("https://localhost:" + server.getAddress().getPort() + "/");
            IOException e = assertThrows(IOException.class,
                    () -> client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()));
            String messages = "";
            for (Throwable t = e; t != null; t = t.getCause()) messages += t + "\n";
            assertTrue(messages.contains("plain http:// only"), messages);
            assertEquals(0, hits.get(), "no request may reach the server");
        } finally {
            server.stop(0);
        }
    }
}
