package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The test A2C-SMCP office ({@code interop/smcp/office.mjs}, real Node {@code socket.io} 4.8 pinned and installed by
 * {@code scripts/install-smcp-test-office.sh}): the Server role and scripted Computers, on a port the OS picks.
 * Its event lines (tool calls, cancels, joins) are kept for the tests; commands make Computers join, leave and
 * change their tools. Tests skip only when node is not installed.
 */
public final class SmcpTestOffice implements AutoCloseable {
    static final Path HOME = Path.of(System.getProperty("agent.home", System.getProperty("user.dir")));
    static final Path DIR = HOME.resolve("interop/smcp");

    private final Process process;
    private final Writer stdin;
    private final List<JsonNode> events = new ArrayList<>();
    public final int port;

    private SmcpTestOffice(Process process) throws IOException {
        this.process = process;
        this.stdin = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Thread.ofVirtual().start(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    JsonNode ev = Json.mapper().readTree(line);
                    synchronized (events) {
                        events.add(ev);
                        events.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // the office ended
            }
        });
        this.port = await(e -> "listening".equals(e.path("ev").asText()), Duration.ofSeconds(30)).path("port").asInt();
    }

    /** Starts the office; {@code args} as office.mjs takes them (e.g. "--a2c-version", "0.3.0"). */
    public static SmcpTestOffice start(String... args) throws IOException {
        String node = requireNode();
        List<String> command = new ArrayList<>(List.of(node, DIR.resolve("office.mjs").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(DIR.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        SmcpTestOffice office = new SmcpTestOffice(p);
        return office;
    }

    public static String requireNode() {
        String node = null;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "node"))) { node = Path.of(dir, "node").toString(); break; }
        }
        Assumptions.assumeTrue(node != null, "node is not installed: the SMCP tests run a real Socket.IO office and are skipped");
        if (!Files.isDirectory(DIR.resolve("node_modules/socket.io"))) {
            fail("the test office's packages are not installed in " + DIR + ": run scripts/install-smcp-test-office.sh (bin/test does)");
        }
        return node;
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Sends a command ("join beta", "leave alpha", "update alpha", "drop-agents") and waits until the office did it. */
    public void command(String line) throws IOException {
        int before = count(e -> "done".equals(e.path("ev").asText()));
        stdin.write(line + "\n");
        stdin.flush();
        await(e -> "done".equals(e.path("ev").asText()), before + 1, Duration.ofSeconds(30));
    }

    public JsonNode await(Predicate<JsonNode> match, Duration max) {
        return await(match, 1, max);
    }

    /** The {@code n}th event that matches, waiting for it at most {@code max}. */
    public JsonNode await(Predicate<JsonNode> match, int n, Duration max) {
        long end = System.nanoTime() + max.toNanos();
        synchronized (events) {
            while (true) {
                List<JsonNode> hits = events.stream().filter(match).toList();
                if (hits.size() >= n) return hits.get(n - 1);
                long left = end - System.nanoTime();
                if (left <= 0) throw new AssertionError("no such office event within " + max + "; events: " + events);
                try {
                    events.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted");
                }
            }
        }
    }

    public int count(Predicate<JsonNode> match) {
        synchronized (events) {
            return (int) events.stream().filter(match).count();
        }
    }

    public static Predicate<JsonNode> ev(String name) {
        return e -> name.equals(e.path("ev").asText());
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
