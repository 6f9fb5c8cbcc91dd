package cn.agentao.agent.net;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.testing.TestCertificates;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLHandshakeException;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Real TLS handshakes against a server whose certificate a test CA signed: trusted only when the CA comes from
 * SSL_CERT_FILE, SSL_CERT_DIR or the system bundle; the JDK's own CAs still trusted alongside.
 */
class TrustedCertificatesIT {
    static HttpsServer server;
    static TestCertificates certs;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServer() throws IOException {
        certs = TestCertificates.get();
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.setHttpsConfigurator(new HttpsConfigurator(certs.serverContext()));
        server.createContext("/", exchange -> {
            byte[] body = "hello over tls".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterAll
    static void stopServer() {
        server.stop(0);
    }

    private static String fetch(Network network) throws IOException, InterruptedException {
        HttpClient client = network.configure(HttpClient.newBuilder(), true).build();
        URI uri = URI.create("https://localhost:" + server.getAddress().getPort() + "/");
        return client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void theTestCaIsNotTrustedByDefault() {
        Network network = new Network(AgentConfig.Network.from(Map.of()), List.of());
        SSLHandshakeException e = assertThrows(SSLHandshakeException.class, () -> fetch(network));
        assertTrue(NetworkFailures.describe(e).contains("SSL_CERT_FILE"), NetworkFailures.describe(e));
    }

    @Test
    void sslCertFileAddsItsCas() throws Exception {
        Path bundle = dir.resolve("bundle.pem"); // a bundle with text around the blocks, as distributions write them
        Files.writeString(bundle, "# Corporate CA\nsome words\n" + Files.readString(certs.caPem()) + "\ntrailing notes\n");
        Network network = new Network(AgentConfig.Network.from(Map.of("SSL_CERT_FILE", bundle.toString())), List.of());
        assertEquals("hello over tls", fetch(network));
        assertEquals(List.of(), network.problems());
    }

    @Test
    void sslCertDirAddsTheCasOfItsFiles() throws Exception {
        Path certsDir = Files.createDirectories(dir.resolve("certs"));
        Files.copy(certs.caPem(), certsDir.resolve("corp.pem"));
        Files.createSymbolicLink(certsDir.resolve("0a1b2c3d.0"), certsDir.resolve("corp.pem")); // an OpenSSL hash link
        Files.writeString(certsDir.resolve("README"), "not a certificate");
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Network network = new Network(AgentConfig.Network.from(Map.of("SSL_CERT_DIR", empty + ":" + certsDir)), List.of());
        assertEquals("hello over tls", fetch(network));
        assertEquals(List.of(), network.problems());
    }

    @Test
    void aClientBuiltForPlainHttpSetsUpTlsWhenItMeetsItWithTheExtraCas() throws Exception {
        Network network = new Network(AgentConfig.Network.from(Map.of("SSL_CERT_FILE", certs.caPem().toString())), List.of());
        HttpClient client = network.configure(HttpClient.newBuilder(), false).build();
        URI uri = URI.create("https://localhost:" + server.getAddress().getPort() + "/");
        assertEquals("hello over tls", client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    @Test
    void aClientBuiltForPlainHttpReachesAnHttpServer() throws Exception {
        com.sun.net.httpserver.HttpServer plain = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        plain.createContext("/", exchange -> {
            byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        plain.start();
        try {
            HttpClient client = new Network(AgentConfig.Network.from(Map.of()), List.of()).configure(HttpClient.newBuilder(), false).build();
            URI uri = URI.create("http://127.0.0.1:" + plain.getAddress().getPort() + "/");
            assertEquals("hello", client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body());
        } finally {
            plain.stop(0);
        }
    }

    @Test
    void theSystemBundleIsAddedWhenPresent() throws Exception {
        Network network = new Network(AgentConfig.Network.from(Map.of()), List.of(dir.resolve("missing.crt"), certs.caPem()));
        assertEquals("hello over tls", fetch(network));
    }

    @Test
    void theJdkCasStayTrusted() throws Exception {
        javax.net.ssl.TrustManagerFactory f = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        f.init((java.security.KeyStore) null);
        List<X509Certificate> jdk = List.of(((javax.net.ssl.X509TrustManager) f.getTrustManagers()[0]).getAcceptedIssuers());
        assertTrue(jdk.size() > 50, "the JDK ships its CAs");
        TrustedCertificates loaded = TrustedCertificates.load(AgentConfig.Network.from(Map.of("SSL_CERT_FILE", certs.caPem().toString())).certificates(), List.of());
        Set<X509Certificate> trusted = Set.copyOf(loaded.acceptedIssuers());
        assertTrue(trusted.containsAll(jdk), "extra CAs add to the JDK's, they replace none");
        assertEquals(jdk.size() + 1, trusted.size());
        assertEquals(1, loaded.added());
    }

    @Test
    void badFilesAreReportedAndTheRestStillWorks() throws Exception {
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate at all");
        Network missing = new Network(AgentConfig.Network.from(Map.of("SSL_CERT_FILE", dir.resolve("nope.pem").toString(), "SSL_CERT_DIR",
                dir.resolve("no-dir").toString())), List.of(certs.caPem()));
        assertEquals("hello over tls", fetch(missing), "the system bundle still counts");
        String problems = String.join("\n", missing.problems());
        assertTrue(problems.contains("SSL_CERT_FILE=" + dir.resolve("nope.pem") + " is not a file"), problems);
        assertTrue(problems.contains("no-dir is not a directory"), problems);
        Network bad = new Network(AgentConfig.Network.from(Map.of("SSL_CERT_FILE", garbage.toString())), List.of());
        bad.sslContext();
        assertTrue(String.join("\n", bad.problems()).contains("holds no PEM certificate"), bad.problems().toString());
    }
}
