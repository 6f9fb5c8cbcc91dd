package cn.agentao.agent.bench;

import cn.agentao.agent.door.a2a.A2aServerProcess;
import cn.agentao.agent.store.postgres.PostgresStoreConfig;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.PostgresServer;
import cn.agentao.agent.testing.Script;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Past one machine, on this one: N concurrent streaming A2A tasks (default 200, each in a new context) over TWO
 * {@code agent a2a serve} instances sharing one PostgreSQL database (half to each), against the same N on ONE
 * instance with the file store, measured in the same run and interleaved (rounds, default 2). Prints for each: all
 * completed?, wall time, per-task latency median/p90, each instance's RSS after, and for PostgreSQL the most
 * database connections seen open at once. The scripted model streams three chunks 20 ms apart. A throwaway
 * PostgreSQL is started (scripts/install-postgres.sh). Run: bench/a2a-scale.sh [tasks] [rounds]
 */
public final class A2aScaleBenchmark {
    record Result(int completed, double wallMs, double medianMs, double p90Ms, List<Long> rssKb, int peakConnections) {}

    public static void main(String[] args) throws Exception {
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        try (FakeModelServer model = FakeModelServer.start()) {
            model.whenEmpty(Script.reply().delay(20).text("Hello ", "from ", "the agent"));
            PostgresServer pg = PostgresServer.shared();
            List<Result> files = new ArrayList<>(), postgres = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                files.add(runFiles(model, tasks));
                postgres.add(runPostgres(model, pg, tasks));
                print("round " + (r + 1) + " files, 1 instance ", tasks, files.getLast());
                print("round " + (r + 1) + " PostgreSQL, 2 inst.", tasks, postgres.getLast());
            }
            Result f = best(files), p = best(postgres);
            System.out.printf("%d concurrent streaming tasks, best of %d rounds: wall %.0f ms (2 instances on PostgreSQL) vs %.0f ms"
                            + " (1 instance, files): ratio %.2f; median latency ratio %.2f; p90 ratio %.2f; load average %s%n",
                    tasks, rounds, p.wallMs(), f.wallMs(), p.wallMs() / f.wallMs(), p.medianMs() / f.medianMs(), p.p90Ms() / f.p90Ms(),
                    Files.readString(Path.of("/proc/loadavg")).trim());
        }
        System.exit(0); // the shared PostgreSQL server is stopped by its shutdown hook
    }

    static void print(String label, int tasks, Result r) {
        System.out.printf("%s: %d/%d completed, wall %.0f ms, latency median %.0f ms p90 %.0f ms, RSS %s MiB%s%n", label,
                r.completed(), tasks, r.wallMs(), r.medianMs(), r.p90Ms(),
                r.rssKb().stream().map(k -> Long.toString(k / 1024)).toList(),
                r.peakConnections() < 0 ? "" : ", peak DB connections " + r.peakConnections());
    }

    static Result best(List<Result> rs) {
        return rs.stream().min((a, b) -> Double.compare(a.wallMs(), b.wallMs())).orElseThrow();
    }

    static Map<String, String> env(FakeModelServer model, Path dir) throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        env.put("AGENT_SANDBOX", "none");
        return env;
    }

    static Result runFiles(FakeModelServer model, int tasks) throws Exception {
        Path dir = Files.createTempDirectory("bench-a2a-scale");
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Map<String, String> env = env(model, dir);
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        try (A2aServerProcess server = A2aServerProcess.start(env, ws, "--cwd", ws.toString())) {
            String url = server.url() + "/";
            warm(List.of(url));
            Result r = drive(List.of(url), tasks, () -> -1);
            return new Result(r.completed(), r.wallMs(), r.medianMs(), r.p90Ms(), List.of(A2aBenchmark.rssKb(server.process().pid())), -1);
        }
    }

    static Result runPostgres(FakeModelServer model, PostgresServer pg, int tasks) throws Exception {
        PostgresStoreConfig db = pg.freshDatabase();
        Path dir = Files.createTempDirectory("bench-a2a-scale");
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Map<String, String> env = env(model, dir);
        try (A2aServerProcess one = A2aServerProcess.start(env, ws, "--cwd", ws.toString(), "--store", db.display());
             A2aServerProcess two = A2aServerProcess.start(env, ws, "--cwd", ws.toString(), "--store", db.display())) {
            List<String> urls = List.of(one.url() + "/", two.url() + "/");
            warm(urls);
            try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), "")) {
                Result r = drive(urls, tasks, () -> connections(c, db.database()));
                return new Result(r.completed(), r.wallMs(), r.medianMs(), r.p90Ms(),
                        List.of(A2aBenchmark.rssKb(one.process().pid()), A2aBenchmark.rssKb(two.process().pid())), r.peakConnections());
            }
        }
    }

    static void warm(List<String> urls) throws Exception {
        for (int i = 0; i < 20; i++) for (String u : urls) A2aBenchmark.stream(u, null);
    }

    /** The connections open to {@code database} now, but the one asking. */
    static int connections(Connection c, String database) {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select count(*) - 1 from pg_stat_activity where datname = '" + database + "'")) {
            rs.next();
            return rs.getInt(1);
        } catch (Exception e) {
            return -1;
        }
    }

    /** {@code tasks} message/stream calls at once, spread over {@code urls} in turn; samples {@code gauge} meanwhile. */
    static Result drive(List<String> urls, int tasks, java.util.function.IntSupplier gauge) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger peak = new AtomicInteger(-1);
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (running.get()) {
                peak.accumulateAndGet(gauge.getAsInt(), Math::max);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        List<Future<double[]>> all = new ArrayList<>();
        long start = System.nanoTime();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < tasks; i++) {
                String url = urls.get(i % urls.size());
                all.add(pool.submit((Callable<double[]>) () -> {
                    long t0 = System.nanoTime();
                    double[] r = A2aBenchmark.stream(url, null);
                    return new double[]{r[2], (System.nanoTime() - t0) / 1e6};
                }));
            }
            int completed = 0;
            List<Double> latencies = new ArrayList<>();
            for (Future<double[]> f : all) {
                double[] r = f.get();
                if (r[0] == 1) completed++;
                latencies.add(r[1]);
            }
            double wall = (System.nanoTime() - start) / 1e6;
            running.set(false);
            sampler.join();
            peak.accumulateAndGet(gauge.getAsInt(), Math::max);
            Collections.sort(latencies);
            return new Result(completed, wall, latencies.get(latencies.size() / 2),
                    latencies.get((int) Math.ceil(latencies.size() * 0.9) - 1), List.of(), peak.get());
        }
    }
}
