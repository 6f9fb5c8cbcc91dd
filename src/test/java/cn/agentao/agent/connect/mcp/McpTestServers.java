package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.core.tool.McpServerConfig.NameValue;
import org.junit.jupiter.api.Assumptions;

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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The real MCP servers the tests run: {@code @modelcontextprotocol/server-everything} and
 * {@code server-filesystem}, pinned in {@code interop/mcp-servers} and installed by
 * {@code scripts/install-mcp-test-servers.sh} (which {@code bin/test} runs). Tests skip only when node is not
 * installed; with node but without the servers they fail, saying how to install them.
 */
final class McpTestServers {
    static final Path HOME = Path.of(System.getProperty("agent.home", System.getProperty("user.dir")));
    static final Path MODULES = HOME.resolve("interop/mcp-servers/node_modules/@modelcontextprotocol");
    static final Path EVERYTHING = MODULES.resolve("server-everything/dist/index.js");
    static final Path FILESYSTEM = MODULES.resolve("server-filesystem/dist/index.js");

    private McpTestServers() {}

    /** The path of node, skipping the test (with the reason) when it is not installed. */
    static String requireNode() {
        String node = findOnPath("node");
        Assumptions.assumeTrue(node != null, "node is not installed: the MCP tests run real Node MCP servers and are skipped");
        if (!Files.isRegularFile(EVERYTHING) || !Files.isRegularFile(FILESYSTEM)) {
            fail("the MCP test servers are not installed in " + MODULES + ": run scripts/install-mcp-test-servers.sh (bin/test does)");
        }
        return node;
    }

    private static String findOnPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) return null;
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) return p.toString();
        }
        return null;
    }

    static McpServerConfig stdio(String name, String command, List<String> args, List<NameValue> env) {
        return new McpServerConfig("stdio", name, command, args, env, null, null);
    }

    static McpServerConfig everythingStdio(String name) {
        return stdio(name, requireNode(), List.of(EVERYTHING.toString(), "stdio"), List.of());
    }

    static McpServerConfig filesystemStdio(String name, Path root) {
        return stdio(name, requireNode(), List.of(FILESYSTEM.toString(), root.toString()), List.of());
    }

    static McpServerConfig http(String type, String name, String url, List<NameValue> headers) {
        return new McpServerConfig(type, name, null, null, null, url, headers);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** server-everything over HTTP ({@code streamableHttp} or {@code sse}) on a free loopback port. */
    static RunningHttpServer startEverythingHttp(String mode) throws IOException, InterruptedException {
        String node = requireNode();
        int port = freePort();
        ProcessBuilder pb = new ProcessBuilder(node, EVERYTHING.toString(), mode)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("PORT", Integer.toString(port));
        Process p = pb.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) fail("server-everything " + mode + " exited with code " + p.exitValue());
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return new RunningHttpServer(p, port);
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        p.destroyForcibly();
        fail("server-everything " + mode + " did not listen on port " + port);
        return null;
    }

    record RunningHttpServer(Process process, int port) implements AutoCloseable {
        String url(String path) {
            return "http://127.0.0.1:" + port + path;
        }

        @Override
        public void close() {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    /** The processes under this JVM whose command line mentions {@code marker}. */
    static List<ProcessHandle> descendantsRunning(String marker) {
        List<ProcessHandle> out = new ArrayList<>();
        ProcessHandle.current().descendants()
                .filter(ChildProcesses::isRunning)
                .filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false)
                        || p.info().arguments().map(a -> String.join(" ", a).contains(marker)).orElse(false))
                .forEach(out::add);
        return out;
    }

    /** Waits until no process under this JVM mentions {@code marker}; the ones still there. */
    static List<ProcessHandle> awaitNoDescendants(String marker, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        List<ProcessHandle> left = descendantsRunning(marker);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            left = descendantsRunning(marker);
        }
        return left;
    }

    /** Records what a set reports. */
    static final class RecordingListener implements McpServerSet.Listener {
        final List<String> failures = new CopyOnWriteArrayList<>();
        final Set<String> ready = ConcurrentHashMap.newKeySet();
        final List<String> changed = new CopyOnWriteArrayList<>();

        @Override
        public void serverFailed(String server, String reason) {
            failures.add(server + ": " + reason);
        }

        @Override
        public void serverReady(String server) {
            ready.add(server);
        }

        @Override
        public void serverChanged(String server) {
            changed.add(server);
        }
    }
}
