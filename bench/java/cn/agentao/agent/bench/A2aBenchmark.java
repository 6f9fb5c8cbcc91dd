package cn.agentao.agent.bench;

import cn.agentao.agent.door.a2a.A2aServerProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code agent a2a serve} with the scripted model: (1) message/stream on a warm server, time to the first event
 * (the task) and to the first answer chunk, against the fake model's own time to its first chunk measured in the
 * same run, and A2A 1.0's SendStreamingMessage (JSON-RPC) and POST /message:stream (HTTP+JSON) alternating with it,
 * as ratios to 0.3's; (2) N concurrent streaming tasks (default 50), each in its own context, over 0.3 and then
 * over 1.0: all must complete, server RSS before and after; (3) the RSS cost of idle contexts (default 200). Run: bench/a2a.sh [concurrent] [contexts]
 */
public final class A2aBenchmark {
    private static final HttpClient HTTP = HttpClient.newBuilder().executor(Executors.newVirtualThreadPerTaskExecutor()).build();

    public static void main(String[] args) throws Exception {
        int concurrent = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        int contexts = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        try (FakeModelServer model = FakeModelServer.start()) {
            model.whenEmpty(Script.reply().text("Hello ", "from ", "the agent"));
            Path dir = Files.createTempDirectory("bench-a2a");
            Path ws = Files.createDirectories(dir.resolve("ws"));
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
            env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
            env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
            try (A2aServerProcess server = A2aServerProcess.start(env, ws, "--cwd", ws.toString())) {
                String url = server.url() + "/";
                long pid = server.process().pid();
                for (int i = 0; i < 30; i++) { // warm up all three paths
                    stream(url, null);
                    streamV1(url, false);
                    streamV1(url, true);
                }
                List<Double> first = new ArrayList<>(), chunk = new ArrayList<>(), direct = new ArrayList<>();
                List<Double> firstV1 = new ArrayList<>(), chunkV1 = new ArrayList<>(), firstRest = new ArrayList<>(), chunkRest = new ArrayList<>();
                for (int i = 0; i < 30; i++) { // alternating, so that the machine's load weighs on each the same
                    direct.add(directFirstChunk(model));
                    // the order turns each round: no path always runs first after the model's direct call, or
                    // right after another task whose store write is still under way
                    for (int k = 0; k < 3; k++) {
                        switch ((i + k) % 3) {
                            case 0 -> {
                                double[] t = stream(url, null);
                                first.add(t[0]);
                                chunk.add(t[1]);
                            }
                            case 1 -> {
                                double[] v = streamV1(url, false);
                                firstV1.add(v[0]);
                                chunkV1.add(v[1]);
                            }
                            default -> {
                                double[] r = streamV1(url, true);
                                firstRest.add(r[0]);
                                chunkRest.add(r[1]);
                            }
                        }
                    }
                }
                System.out.printf("message/stream on a warm server (30 runs, medians): first event (the task) %.1f ms, "
                        + "first answer chunk %.1f ms; the fake model's own first chunk %.1f ms; ratio first chunk/model %.2f%n",
                        median(first), median(chunk), median(direct), median(chunk) / median(direct));
                System.out.printf("A2A 1.0 SendStreamingMessage (JSON-RPC), same runs: first event %.1f ms, first answer chunk %.1f ms; "
                        + "ratio to 0.3's message/stream: first event %.2f, first chunk %.2f%n", median(firstV1), median(chunkV1),
                        median(firstV1) / median(first), median(chunkV1) / median(chunk));
                System.out.printf("A2A 1.0 POST /message:stream (HTTP+JSON), same runs: first event %.1f ms, first answer chunk %.1f ms; "
                        + "ratio to 0.3's message/stream: first event %.2f, first chunk %.2f%n", median(firstRest), median(chunkRest),
                        median(firstRest) / median(first), median(chunkRest) / median(chunk));

                long rssBefore = rssKb(pid);
                ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
                List<Future<double[]>> all = new ArrayList<>();
                long start = System.nanoTime();
                for (int i = 0; i < concurrent; i++) all.add(pool.submit((Callable<double[]>) () -> stream(url, null)));
                int completed = 0;
                for (Future<double[]> f : all) if (f.get()[2] == 1) completed++;
                double wall = (System.nanoTime() - start) / 1e6;
                System.out.printf("%d concurrent 0.3 streaming tasks: %d completed in %.0f ms; server RSS %d MiB before, %d MiB after%n",
                        concurrent, completed, wall, rssBefore / 1024, rssKb(pid) / 1024);
                all.clear();
                start = System.nanoTime();
                for (int i = 0; i < concurrent; i++) {
                    boolean rest = i % 2 == 1;
                    all.add(pool.submit((Callable<double[]>) () -> streamV1(url, rest)));
                }
                completed = 0;
                for (Future<double[]> f : all) if (f.get()[2] == 1) completed++;
                wall = (System.nanoTime() - start) / 1e6;
                System.out.printf("%d concurrent 1.0 streaming tasks (half JSON-RPC, half HTTP+JSON): %d completed in %.0f ms; "
                        + "server RSS %d MiB after%n", concurrent, completed, wall, rssKb(pid) / 1024);

                gc(pid); // the server's heap, collected before each reading, so that garbage does not count
                long base = rssKb(pid);
                for (int i = 0; i < contexts; i++) stream(url, null); // each message without contextId opens a new one
                gc(pid);
                long after = rssKb(pid);
                System.out.printf("%d more idle contexts (live sessions): RSS %d MiB -> %d MiB, about %.1f KiB each%n",
                        contexts, base / 1024, after / 1024, (after - base) / (double) contexts);
                server.terminate();
            }
        }
    }

    /** One message/stream: {ms to first event, ms to first artifact chunk, 1 if it completed}. */
    static double[] stream(String url, String contextId) throws Exception {
        String message = "{\"kind\":\"message\",\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"user\",\"parts\":[{\"kind\":\"text\",\"text\":\"hi\"}]"
                + (contextId == null ? "" : ",\"contextId\":\"" + contextId + "\"") + "}";
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/stream\",\"params\":{\"message\":" + message + "}}";
        return timed(HttpRequest.newBuilder(URI.create(url)), body, "\"artifact-update\"",
                line -> line.contains("\"final\":true"), line -> line.contains("\"completed\""));
    }

    /**
     * One A2A 1.0 stream, {@code SendStreamingMessage} over JSON-RPC or {@code POST /message:stream} over HTTP+JSON:
     * {ms to first event, ms to first artifact chunk, 1 if it completed}. 1.0 has no {@code final}: the stream ends
     * after the terminal status.
     */
    static double[] streamV1(String url, boolean rest) throws Exception {
        String message = "{\"messageId\":\"" + UUID.randomUUID() + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]}";
        String body = rest ? "{\"message\":" + message + "}"
                : "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendStreamingMessage\",\"params\":{\"message\":" + message + "}}";
        return timed(HttpRequest.newBuilder(URI.create(rest ? url + "message:stream" : url)).header("A2A-Version", "1.0"), body,
                "\"artifactUpdate\"", line -> line.contains("\"statusUpdate\"") && (line.contains("TASK_STATE_COMPLETED")
                        || line.contains("TASK_STATE_FAILED") || line.contains("TASK_STATE_CANCELED")),
                line -> line.contains("TASK_STATE_COMPLETED"));
    }

    /**
     * Posts {@code body} and reads the event stream: {ms to the first event, ms to the first event containing
     * {@code chunkMarker}, 1 if the {@code last} event is also {@code completed}}.
     */
    private static double[] timed(HttpRequest.Builder request, String body, String chunkMarker,
                                  java.util.function.Predicate<String> last, java.util.function.Predicate<String> completed) throws Exception {
        long start = System.nanoTime();
        HttpResponse<java.io.InputStream> r = HTTP.send(request.header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofInputStream());
        double first = -1, chunk = -1, done = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith("data:")) continue;
                double t = (System.nanoTime() - start) / 1e6;
                if (first < 0) first = t;
                if (chunk < 0 && line.contains(chunkMarker)) chunk = t;
                if (last.test(line)) {
                    done = completed.test(line) ? 1 : 0;
                    break;
                }
            }
        }
        return new double[]{first, chunk, done};
    }

    /** The fake model alone: ms from request to its first streamed chunk. */
    static double directFirstChunk(FakeModelServer model) throws Exception {
        String body = "{\"model\":\"fake-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        long start = System.nanoTime();
        HttpResponse<java.io.InputStream> r = HTTP.send(HttpRequest.newBuilder(URI.create(model.baseUrl() + "/chat/completions"))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + FakeModelServer.API_KEY)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofInputStream());
        double t = -1;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (t < 0 && line.startsWith("data:")) t = (System.nanoTime() - start) / 1e6;
            }
        }
        return t;
    }

    /** A full collection in the server's JVM (bin/agent's java, or its java child), through the JDK's jcmd. */
    static void gc(long pid) throws Exception {
        Path jcmd = Path.of(ProcessHandle.current().info().command().orElseThrow()).resolveSibling("jcmd");
        List<Long> pids = new ArrayList<>(List.of(pid));
        ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
        for (long p : pids) {
            if (!ProcessHandle.of(p).flatMap(h -> h.info().command()).map(c -> c.endsWith("/java")).orElse(false)) continue;
            Process gc = new ProcessBuilder(jcmd.toString(), Long.toString(p), "GC.run").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            gc.waitFor();
        }
    }

    static long rssKb(long pid) throws Exception {
        long total = 0;
        // bin/agent may exec java directly or run it as a child: count the process and its descendants
        List<Long> pids = new ArrayList<>(List.of(pid));
        ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
        for (long p : pids) {
            Path status = Path.of("/proc/" + p + "/status");
            if (!Files.exists(status)) continue;
            for (String l : Files.readAllLines(status)) if (l.startsWith("VmRSS:")) total += Long.parseLong(l.replaceAll("\\D", ""));
        }
        return total;
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
