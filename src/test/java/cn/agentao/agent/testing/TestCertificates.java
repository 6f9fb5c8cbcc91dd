package cn.agentao.agent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A certificate authority made for the tests with the JDK's {@code keytool}, and a server certificate it signed for
 * {@code localhost}, {@code 127.0.0.1} and this machine's name ({@link #localName()}). Made once per test JVM.
 * Nothing on the machine trusts the CA: a client trusts it only when told to ({@link #caPem()}).
 */
public final class TestCertificates {
    private static final String PASSWORD = "changeit";
    private static TestCertificates instance;

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    public static synchronized TestCertificates get() {
        if (instance == null) {
            try {
                Path dir = Files.createTempDirectory("agent-test-ca");
                dir.toFile().deleteOnExit();
                make(dir);
                instance = new TestCertificates(dir);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("cannot make the test certificates with keytool", e);
            }
        }
        return instance;
    }

    /** The CA's certificate, PEM. */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** The server's key and certificate chain (PKCS#12, password {@link #serverPassword()}), for servers that are not Java. */
    public Path serverPkcs12() {
        return dir.resolve("server.p12");
    }

    public String serverPassword() {
        return PASSWORD;
    }

    /** A TLS context for a server presenting the certificate the CA signed. */
    public SSLContext serverContext() {
        try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, PASSWORD.toCharArray());
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, PASSWORD.toCharArray());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (Exception e) {
            throw new IllegalStateException("cannot load the test server certificate", e);
        }
    }

    /**
     * This machine's own name (not {@code localhost}): the agent sends requests for it to a proxy (only loopback names
     * and addresses always go direct), and the proxy, on this machine, resolves it to this machine.
     */
    public static String localName() {
        try {
            String name = InetAddress.getLocalHost().getHostName();
            if (name.equalsIgnoreCase("localhost") || name.endsWith(".localhost")) {
                throw new IllegalStateException("this machine's name is " + name + "; the proxy tests need another name for it");
            }
            return name;
        } catch (UnknownHostException e) {
            throw new IllegalStateException("this machine's name does not resolve: the proxy tests need it to", e);
        }
    }

    /** The address {@link #localName()} resolves to first, where test servers listen. */
    public static InetAddress localAddress() {
        try {
            return InetAddress.getByName(localName());
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void make(Path dir) throws IOException, InterruptedException {
        String name = localName();
        keytool(dir, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=Agent Test CA",
                "-ext", "bc:c", "-validity", "30", "-keystore", "ca.p12", "-storetype", "PKCS12", "-storepass", PASSWORD);
        keytool(dir, "-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-storepass", PASSWORD, "-file", "ca.pem");
        keytool(dir, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-validity", "30", "-keystore", "server.p12", "-storetype", "PKCS12", "-storepass", PASSWORD);
        keytool(dir, "-certreq", "-alias", "server", "-keystore", "server.p12", "-storepass", PASSWORD, "-file", "server.csr");
        keytool(dir, "-gencert", "-alias", "ca", "-keystore", "ca.p12", "-storepass", PASSWORD, "-infile", "server.csr",
                "-outfile", "server.pem", "-rfc", "-validity", "30", "-ext", "san=dns:localhost,ip:127.0.0.1,dns:" + name,
                "-ext", "eku=serverAuth");
        keytool(dir, "-importcert", "-noprompt", "-alias", "ca", "-keystore", "server.p12", "-storepass", PASSWORD, "-file", "ca.pem");
        keytool(dir, "-importcert", "-alias", "server", "-keystore", "server.p12", "-storepass", PASSWORD, "-file", "server.pem");
    }

    private static void keytool(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + out);
        }
    }
}
