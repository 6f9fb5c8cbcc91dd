package cn.agentao.agent.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;

/**
 * A real HTTP proxy process for the tests ({@link TinyProxy}, {@link SquidProxy}), installed by
 * {@code scripts/install-proxy-test-tools.sh} (which {@code bin/test} runs) and started in the foreground on a free
 * loopback port with its own configuration and logs in a temporary directory. {@link #requests()} reads the requests it
 * logged as {@code METHOD URL} ({@code POST http://host:port/path}, {@code CONNECT host:port}).
 */
public abstract class TestProxy implements AutoCloseable {
    private final Process process;
    private final int port;

    protected TestProxy(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** The installed program, skipping the test (saying why) when it is not installed. */
    protected static String require(String program) {
        String path = System.getenv("PATH");
        List<String> dirs = new ArrayList<>(path == null ? List.of() : List.of(path.split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"));
        for (String d : dirs) {
            Path p = Path.of(d, program);
            if (Files.isExecutable(p)) return p.toString();
        }
        Assumptions.abort(program + " is not installed: the proxy tests need it "
                + "(scripts/install-proxy-test-tools.sh installs it; bin/test runs that)");
        return null;
    }

    protected static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Whether {@code p} accepts connections on {@code port} within 20 s (false when it exits first). */
    protected static boolean listening(Process p, int port) throws InterruptedException {
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

    /** {@code http://127.0.0.1:PORT}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** {@code http://user:password@127.0.0.1:PORT}. */
    public String url(String user, String password) {
        return "http://" + user + ":" + password + "@127.0.0.1:" + port;
    }

    /** The requests logged so far as {@code METHOD URL}. */
    public abstract List<String> requests();

    /** The proxy's log, for failure messages. */
    public abstract String log();

    /** Waits (logs are written as requests are handled) until a logged request matches; fails with the log if none does. */
    public String awaitRequest(Predicate<String> matcher, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (String r : requests()) if (matcher.test(r)) return r;
            if (System.nanoTime() > deadline) throw new AssertionError("the proxy logged no such request; its log:\n" + log());
            Thread.sleep(50);
        }
    }

    protected static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
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
