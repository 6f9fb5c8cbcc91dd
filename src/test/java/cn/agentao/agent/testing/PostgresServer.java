package cn.agentao.agent.testing;

import cn.agentao.agent.store.postgres.PostgresStoreConfig;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real, throwaway PostgreSQL server for the tests: Debian's {@code postgresql} programs ({@code scripts/install-postgres.sh}
 * installs them), a data directory under the temp directory, a free port on 127.0.0.1, trust authentication for the
 * user {@code agent}. One per test JVM, started on first use and stopped when the JVM exits. PostgreSQL refuses to
 * run as root, so as root it runs as the {@code postgres} user. Fails with a clear message when it cannot start.
 */
public final class PostgresServer {
    public static final String USER = "agent";
    private static PostgresServer shared;
    private static final AtomicInteger databases = new AtomicInteger();

    private final Path bin;
    private final Path base;
    private final int port;

    private PostgresServer(Path bin, Path base, int port) {
        this.bin = bin;
        this.base = base;
        this.port = port;
    }

    /** The JVM's server, started on first call. */
    public static synchronized PostgresServer shared() {
        if (shared == null) {
            try {
                shared = start();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("cannot start a test PostgreSQL server (install Debian's postgresql"
                        + " package: scripts/install-postgres.sh): " + e.getMessage(), e);
            }
            PostgresServer server = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(server::stopQuietly));
        }
        return shared;
    }

    private static PostgresServer start() throws IOException, InterruptedException {
        Path bin = findBin();
        Path base = Files.createTempDirectory("agent-pg");
        PostgresServer server = new PostgresServer(bin, base, freePort());
        if (asRoot()) server.run(List.of("chown", "postgres:postgres", base.toString()));
        server.run(server.asOwner(List.of(bin.resolve("initdb").toString(), "-D", server.data(), "-A", "trust", "-U", USER,
                "-E", "UTF8", "--no-sync")));
        server.startServer();
        return server;
    }

    /** Starts the server (again, after {@link #stop}) on the same port and data. */
    public void startServer() throws IOException, InterruptedException {
        run(asOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data(), "-l", base.resolve("log").toString(), "-w",
                "-t", "180", "-o", "-p " + port + " -k " + base + " -c listen_addresses=127.0.0.1 -c fsync=off"
                        + " -c max_connections=300", "start")));
    }

    /** Stops the server at once (as a crash would: {@code -m immediate}), ending every connection. */
    public void stop() throws IOException, InterruptedException {
        run(asOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data(), "-w", "-m", "immediate", "stop")));
    }

    private void stopQuietly() {
        try {
            stop();
        } catch (Exception ignored) {
            // the JVM is exiting
        }
    }

    /** A new, empty database on this server, as a store address. */
    public PostgresStoreConfig freshDatabase() {
        String name = "t" + ProcessHandle.current().pid() + "_" + databases.incrementAndGet();
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", USER, "");
             Statement s = c.createStatement()) {
            s.execute("create database " + name);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create a test database: " + e.getMessage(), e);
        }
        return PostgresStoreConfig.parse(url(name), Map.of(), null);
    }

    /**
     * A user that must give {@code password} (SCRAM), unlike {@link #USER} (trust): for the tests of a wrong or
     * missing password. Added to the front of {@code pg_hba.conf} and reloaded on first use.
     */
    public synchronized String passwordUser(String password) {
        String name = "pw_user";
        try {
            Path hba = base.resolve("data/pg_hba.conf");
            String rules = Files.readString(hba);
            String line = "host all " + name + " 127.0.0.1/32 scram-sha-256\n";
            if (!rules.startsWith(line)) Files.writeString(hba, line + rules);
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", USER, "");
                 Statement s = c.createStatement()) {
                s.execute("do $$ begin if not exists (select from pg_roles where rolname = '" + name + "') then"
                        + " create role " + name + " login superuser; end if; end $$");
                s.execute("alter role " + name + " password '" + password.replace("'", "''") + "'");
                s.execute("select pg_reload_conf()");
            }
            for (long end = System.nanoTime() + 60_000_000_000L; ; Thread.sleep(100)) { // the reload is asynchronous
                try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", name, "not " + password)) {
                    if (System.nanoTime() > end) throw new IllegalStateException("pg_hba.conf was not reloaded");
                } catch (java.sql.SQLException refused) {
                    break;
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot add a password user: " + e.getMessage(), e);
        }
        return name;
    }

    public String url(String database) {
        return "postgres://" + USER + "@127.0.0.1:" + port + "/" + database;
    }

    public int port() {
        return port;
    }

    private String data() {
        return base.resolve("data").toString();
    }

    private static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private List<String> asOwner(List<String> command) {
        if (!asRoot()) return command;
        List<String> out = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        out.addAll(command);
        return out;
    }

    private void run(List<String> command) throws IOException, InterruptedException {
        Path out = Files.createTempFile("agent-pg-cmd", ".log");
        try {
            Process p = new ProcessBuilder(command).directory(base.toFile()).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish");
            }
            if (p.exitValue() != 0) {
                String log = Files.exists(base.resolve("log")) ? Files.readString(base.resolve("log")) : "";
                throw new IOException(String.join(" ", command) + " failed: " + Files.readString(out) + log);
            }
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static Path findBin() throws IOException {
        Path lib = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(lib)) {
            try (Stream<Path> versions = Files.list(lib)) {
                var found = versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparing(b -> b.getParent().getFileName().toString(),
                                Comparator.comparingInt(v -> v.matches("\\d+") ? Integer.parseInt(v) : 0)));
                if (found.isPresent()) return found.get();
            }
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "initdb"))) return Path.of(dir);
        }
        throw new IOException("PostgreSQL's initdb was not found (under /usr/lib/postgresql/*/bin or on PATH)");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
