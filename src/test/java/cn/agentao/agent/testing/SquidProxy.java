package cn.agentao.agent.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's {@code squid} as the tests' proxy: keeps client connections like the proxies of corporate networks, no
 * cache. Its access log has a line per finished request (a stream is logged when it ends). Run as root, squid works as
 * the {@code proxy} user, so its directory is world-writable and outside the test's private temporary directory.
 */
public final class SquidProxy extends TestProxy {
    private final Path dir;

    private SquidProxy(Process process, int port, Path dir) {
        super(process, port);
        this.dir = dir;
    }

    public static SquidProxy start() throws IOException, InterruptedException {
        String binary = require("squid");
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // a free port can be taken before the proxy binds it
            Path dir = Files.createTempDirectory("agent-squid", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            int port = freePort();
            Path conf = dir.resolve("squid.conf");
            Files.writeString(conf, String.join("\n",
                    "http_port 127.0.0.1:" + port,
                    "http_access allow all",
                    "cache deny all",
                    "pid_filename none",
                    "access_log stdio:" + dir.resolve("access.log"),
                    "cache_log " + dir.resolve("cache.log"),
                    "cache_store_log none",
                    "coredump_dir " + dir,
                    "pinger_enable off",
                    "shutdown_lifetime 0 seconds", ""));
            Process p = new ProcessBuilder(binary, "-N", "-f", conf.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("squid.out").toFile()).start();
            if (listening(p, port)) return new SquidProxy(p, port, dir);
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            last = new IOException("squid did not listen on port " + port + ": " + read(dir.resolve("cache.log")) + read(dir.resolve("squid.out")));
            delete(dir);
        }
        throw last;
    }

    /** {@code METHOD URL} of each access log line ({@code time elapsed client code/status bytes METHOD URL …}). */
    @Override
    public List<String> requests() {
        List<String> out = new ArrayList<>();
        for (String line : read(dir.resolve("access.log")).split("\n")) {
            String[] f = line.strip().split("\\s+");
            if (f.length >= 7 && !f[5].equals("-")) out.add(f[5] + " " + f[6]);
        }
        return out;
    }

    @Override
    public String log() {
        return read(dir.resolve("access.log")) + read(dir.resolve("cache.log"));
    }

    @Override
    public void close() throws InterruptedException {
        super.close();
        delete(dir);
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory
        }
    }
}
