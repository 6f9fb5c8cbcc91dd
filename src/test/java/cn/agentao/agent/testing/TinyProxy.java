package cn.agentao.agent.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * A real HTTP proxy for the tests: Debian's {@code tinyproxy}, installed by {@code scripts/install-proxy-test-tools.sh}
 * (which {@code bin/test} runs), started in the foreground on a free loopback port with its own configuration and a
 * log in a temporary directory, optionally asking for Basic credentials. Tests skip, saying why, only when tinyproxy
 * is not installed. {@link #requests()} reads the request lines the proxy logged ({@code GET http://host:port/path},
 * {@code CONNECT host:port}).
 */
public final class TinyProxy implements AutoCloseable {
    private static final Pattern REQUEST = Pattern.compile("Request \\(file descriptor \\d+\\): (\\S+ \\S+) HTTP/");

    private final Process process;
    private final int port;
    private final Path log;

    private TinyProxy(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts one without authentication. */
    public static TinyProxy start(Path dir) throws IOException, InterruptedException {
        return start(dir, null, null);
    }

    /** Starts one that wants {@code user}/{@code password} (Basic) when both are given. */
    public static TinyProxy start(Path dir, String user, String password) throws IOException, InterruptedException {
        String binary = find();
        Assumptions.assumeTrue(binary != null,
                "tinyproxy is not installed: the proxy tests need it (scripts/install-proxy-test-tools.sh installs it; bin/test runs that)");
        Files.createDirectories(dir);
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // a free port can be taken before tinyproxy binds it
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Path log = dir.resolve("tinyproxy-" + port + ".log");
            Path conf = dir.resolve("tinyproxy-" + port + ".conf");
            Files.writeString(conf, "Port " + port + "\nListen 127.0.0.1\nTimeout 60\nMaxClients 50\nLogLevel Info\n"
                    + "LogFile \"" + log + "\"\n" + (user != null ? "BasicAuth " + user + " " + password + "\n" : ""));
            Process p = new ProcessBuilder(binary, "-d", "-c", conf.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("tinyproxy-" + port + ".out").toFile()).start();
            if (listening(p, port)) return new TinyProxy(p, port, log);
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            last = new IOException("tinyproxy did not listen on port " + port + ": "
                    + (Files.exists(log) ? Files.readString(log) : "no log"));
        }
        throw last;
    }

    private static boolean listening(Process p, int port) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline && p.isAlive()) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        return false;
    }

    private static String find() {
        String path = System.getenv("PATH");
        List<String> dirs = new java.util.ArrayList<>(path == null ? List.of() : List.of(path.split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"));
        for (String d : dirs) {
            Path p = Path.of(d, "tinyproxy");
            if (Files.isExecutable(p)) return p.toString();
        }
        return null;
    }

    /** {@code http://127.0.0.1:PORT}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** {@code http://user:password@127.0.0.1:PORT}. */
    public String url(String user, String password) {
        return "http://" + user + ":" + password + "@127.0.0.1:" + port;
    }

    /** The request lines the proxy logged so far, e.g. {@code POST http://host:1234/v1/chat/completions}. */
    public List<String> requests() {
        try {
            if (!Files.exists(log)) return List.of();
            Matcher m = REQUEST.matcher(Files.readString(log, StandardCharsets.UTF_8));
            List<String> out = new java.util.ArrayList<>();
            while (m.find()) out.add(m.group(1));
            return out;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits (the log is written as requests come) until a logged request line matches; throws with the log if none does. */
    public String awaitRequest(Predicate<String> matcher, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (String r : requests()) if (matcher.test(r)) return r;
            if (System.nanoTime() > deadline) throw new AssertionError("the proxy logged no such request; its log:\n" + log());
            Thread.sleep(50);
        }
    }

    /** The whole log (for failure messages). */
    public String log() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
}
