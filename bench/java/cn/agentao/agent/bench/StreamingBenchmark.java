package cn.agentao.agent.bench;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A long answer (default 20,000 chunks) streamed from the fake model (a) read directly over HTTP and (b)
 * through the agent to an ACP client over pipes, on the OpenAI-compatible wire or (first argument
 * {@code anthropic}) Anthropic's Messages wire. Both readers do the same work per chunk (parse the JSON,
 * count the text delta) and keep nothing. Prints both medians, the ratio, chunks per second, and the time from
 * session/cancel to the 'cancelled' answer. With {@code -Dbench.reference=DIR} (another checkout, built) its
 * agent is measured in the same rounds, interleaved, and its ratio printed too.
 * Run: bench/streaming.sh [anthropic] [chunks] [rounds]; bench/streaming.sh [anthropic] memory [chunks]
 */
public final class StreamingBenchmark {
    /** The wire the fake model speaks and the agent is pointed at. */
    enum Api {
        OPENAI, ANTHROPIC;

        Map<String, String> environment(FakeModelServer model) {
            return this == OPENAI ? model.openAiEnvironment() : model.anthropicEnvironment();
        }

        HttpRequest request(FakeModelServer model) {
            String body = "{\"model\":\"" + FakeModelServer.MODEL + "\",\"stream\":true,\"max_tokens\":1024,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}";
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(model.baseUrl() + (this == OPENAI ? "/chat/completions" : "/messages")))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
            return (this == OPENAI ? req.header("Authorization", "Bearer " + FakeModelServer.API_KEY)
                    : req.header("x-api-key", FakeModelServer.API_KEY).header("anthropic-version", "2023-06-01")).build();
        }

        /** Whether one event's data carries a text delta. */
        boolean isText(JsonNode data) {
            return this == OPENAI ? data.path("choices").path(0).path("delta").path("content").isTextual()
                    : data.path("delta").path("text").isTextual();
        }
    }

    public static void main(String[] args) throws Exception {
        List<String> a = new ArrayList<>(List.of(args));
        Api api = Api.OPENAI;
        if (!a.isEmpty() && (a.get(0).equals("anthropic") || a.get(0).equals("openai"))) {
            api = Api.valueOf(a.remove(0).toUpperCase(java.util.Locale.ROOT));
        }
        String reference = System.getProperty("bench.reference");
        List<Path> homes = new ArrayList<>(List.of(AgentProcess.home()));
        if (reference != null) homes.add(Path.of(reference).toAbsolutePath());
        if (!a.isEmpty() && a.get(0).equals("memory")) {
            for (Path home : homes) memory(api, home, a.size() > 1 ? Integer.parseInt(a.get(1)) : 1_000_000);
            return;
        }
        int chunks = a.size() > 0 ? Integer.parseInt(a.get(0)) : 20_000;
        int rounds = a.size() > 1 ? Integer.parseInt(a.get(1)) : 5;
        try (FakeModelServer model = FakeModelServer.start()) {
            model.whenEmpty(Script.reply().repeatedText("token ", chunks));
            model.when(FakeModelServer.lastUserMessageContains("hang")).replyAlways(Script.reply().text("x").hang());
            Path tmp = Files.createTempDirectory("bench-stream");
            List<Client> clients = new ArrayList<>();
            try {
                for (Path home : homes) clients.add(startAgent(model, tmp, home, api));
                List<Double> direct = new ArrayList<>(), cancels = new ArrayList<>();
                List<List<Double>> viaAgent = new ArrayList<>();
                for (Client c : clients) viaAgent.add(new ArrayList<>());
                for (int r = -2; r < rounds; r++) { // two rounds warm up all paths
                    double d = readDirect(api, model, chunks);
                    if (r >= 0) direct.add(d);
                    for (int i = 0; i < clients.size(); i++) {
                        Client client = clients.get(i);
                        // a fresh session each round: the answer alone is measured, not a history that grows
                        client.send("{\"jsonrpc\":\"2.0\",\"id\":" + (1000 + r) + ",\"method\":\"session/new\",\"params\":{\"cwd\":\"" + tmp + "\",\"mcpServers\":[]}}");
                        String round = client.until(1000 + r).path("result").path("sessionId").asText();
                        double ms = client.prompt(round, "go", chunks, 100 + r);
                        if (r >= 0) viaAgent.get(i).add(ms);
                    }
                }
                Client main = clients.get(0);
                main.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/new\",\"params\":{\"cwd\":\"" + tmp + "\",\"mcpServers\":[]}}");
                String id = main.until(2).path("result").path("sessionId").asText();
                for (int r = 0; r < rounds; r++) cancels.add(main.cancelLatency(id, 200 + r));
                double md = median(direct);
                System.out.printf("wire=%s chunks=%d rounds=%d load average %s%n", api.name().toLowerCase(java.util.Locale.ROOT),
                        chunks, rounds, Files.readString(Path.of("/proc/loadavg")).trim());
                System.out.printf("direct HTTP read:   median %.0f ms (%.0f chunks/s)%n", md, chunks / md * 1000);
                for (int i = 0; i < clients.size(); i++) {
                    double ma = median(viaAgent.get(i));
                    String who = i == 0 ? "this agent" : "reference " + homes.get(i);
                    System.out.printf("through %s:  median %.0f ms (%.0f chunks/s)%n", who, ma, chunks / ma * 1000);
                    System.out.printf("ratio agent/direct (%s): %.2f (the last answer reached the client in %d messages)%n",
                            who, ma / md, clients.get(i).lastMessages);
                }
                System.out.printf("session/cancel -> prompt answered 'cancelled': median %.0f ms, max %.0f ms%n",
                        median(cancels), Collections.max(cancels));
            } finally {
                for (Client c : clients) c.close();
            }
        }
    }

    /**
     * Memory while a long answer streams: halfway through answers of n/10 and n chunks, the agent's live heap is read
     * (jcmd GC.class_histogram, which collects first); with nothing kept per event, the live heap grows
     * with the answer's text only. Also the agent's peak RSS (VmHWM) after each answer.
     */
    static void memory(Api api, Path home, int chunks) throws Exception {
        int small = chunks / 10;
        try (FakeModelServer model = FakeModelServer.start()) {
            model.when(FakeModelServer.lastUserMessageContains("small")).replyAlways(Script.reply().repeatedText("token ", small));
            model.whenEmpty(Script.reply().repeatedText("token ", chunks));
            Path tmp = Files.createTempDirectory("bench-memory");
            Client client = startAgent(model, tmp, home, api);
            Process agent = client.process;
            try {
                System.out.printf("wire=%s agent %s%n", api.name().toLowerCase(java.util.Locale.ROOT), home);
                int id = 10;
                for (String what : List.of("small", "big")) {
                    int n = what.equals("small") ? small : chunks;
                    client.send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"session/new\",\"params\":{\"cwd\":\"" + tmp + "\",\"mcpServers\":[]}}");
                    String session = client.until(id++).path("result").path("sessionId").asText();
                    long[] liveKb = {-1};
                    client.onHalfway = () -> liveKb[0] = liveHeapKb(agent.pid());
                    client.prompt(session, what, n, id++);
                    client.onHalfway = null;
                    System.out.printf("%,9d chunks (%,d characters): live heap halfway %,d KB; peak RSS so far %,d KB%n",
                            n, (long) n * "token ".length(), liveKb[0], status(agent.pid(), "VmHWM:"));
                }
            } finally {
                client.close();
            }
        }
    }

    /** Starts {@code home}'s bin/agent against the fake model on {@code api} and completes the ACP handshake. */
    static Client startAgent(FakeModelServer model, Path tmp, Path home, Api api) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/agent").toString(), "--acp")
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(api.environment(model));
        pb.environment().put("AGENT_SESSIONS_DIR", tmp.resolve("store").toString());
        Process agent = pb.start();
        Client client = new Client(agent);
        client.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}");
        client.until(1);
        return client;
    }

    /** The agent's live heap: GC.class_histogram collects first and counts only what is still reachable. */
    static long liveHeapKb(long pid) {
        try {
            String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            Process h = new ProcessBuilder(jcmd, Long.toString(pid), "GC.class_histogram").redirectErrorStream(true).start();
            List<String> lines = new String(h.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            h.waitFor();
            if (Boolean.getBoolean("bench.histogram")) lines.stream().limit(10).forEach(System.out::println);
            for (String line : lines) {
                if (line.startsWith("Total")) return Long.parseLong(line.trim().split("\\s+")[2]) / 1024;
            }
            return -1;
        } catch (Exception e) {
            return -1;
        }
    }

    static long status(long pid, String field) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith(field)) return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
        }
        return -1;
    }

    /** Reads the SSE stream directly, parsing each event and counting text deltas. */
    static double readDirect(Api api, FakeModelServer model, int chunks) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest req = api.request(model);
        long t0 = System.nanoTime();
        HttpResponse<java.io.InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        int seen = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("data: ") || line.equals("data: [DONE]")) continue;
                if (api.isText(Json.mapper().readTree(line.substring(6)))) seen++;
            }
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        if (seen != chunks) throw new IllegalStateException("direct read saw " + seen + " chunks");
        return ms;
    }

    /** A minimal ACP client on the agent's pipes: parses every line, keeps nothing. */
    static final class Client {
        final Process process;
        final OutputStream in;
        final BufferedReader out;

        Client(Process p) {
            process = p;
            in = p.getOutputStream();
            out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        }

        /** End of input: the agent exits by itself (forcibly after a while). */
        void close() throws Exception {
            in.close();
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) process.destroyForcibly();
        }

        void send(String line) throws Exception {
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }

        JsonNode until(long id) throws Exception {
            String line;
            while ((line = out.readLine()) != null) {
                JsonNode m = Json.mapper().readTree(line);
                if (!m.has("method") && m.path("id").asLong(-1) == id) return m;
            }
            throw new IllegalStateException("agent closed its output");
        }

        int lastMessages;
        /** Run once when half the expected text has arrived (the memory benchmark samples the agent there). */
        Runnable onHalfway;

        /** Sends a prompt and reads until its answer, checking all the streamed text arrived. */
        double prompt(String session, String text, int chunks, long id) throws Exception {
            long expected = (long) chunks * "token ".length();
            long t0 = System.nanoTime();
            send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"" + session
                    + "\",\"prompt\":[{\"type\":\"text\",\"text\":\"" + text + "\"}]}}");
            long seen = 0;
            int messages = 0;
            String line;
            while ((line = out.readLine()) != null) {
                JsonNode m = Json.mapper().readTree(line);
                if (!m.has("method") && m.path("id").asLong(-1) == id) {
                    if (!"end_turn".equals(m.path("result").path("stopReason").asText())) throw new IllegalStateException(line);
                    break;
                }
                JsonNode u = m.path("params").path("update");
                if ("agent_message_chunk".equals(u.path("sessionUpdate").asText())) {
                    long before = seen;
                    seen += u.path("content").path("text").asText().length();
                    messages++;
                    if (onHalfway != null && before < expected / 2 && seen >= expected / 2) onHalfway.run();
                }
            }
            double ms = (System.nanoTime() - t0) / 1e6;
            if (seen != expected) throw new IllegalStateException("client saw " + seen + " of " + expected + " characters");
            lastMessages = messages;
            return ms;
        }

        /** A turn whose model stream never ends: time from session/cancel to the 'cancelled' answer. */
        double cancelLatency(String session, long id) throws Exception {
            send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"" + session
                    + "\",\"prompt\":[{\"type\":\"text\",\"text\":\"hang\"}]}}");
            String line;
            while ((line = out.readLine()) != null) {
                if (line.contains("agent_message_chunk")) break;
            }
            long t0 = System.nanoTime();
            send("{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"" + session + "\"}}");
            JsonNode r = until(id);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (!"cancelled".equals(r.path("result").path("stopReason").asText())) throw new IllegalStateException(r.toString());
            return ms;
        }
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
