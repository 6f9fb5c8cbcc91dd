package cn.agentao.agent.bench;

import cn.agentao.agent.protocol.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A long answer (default 20,000 chunks) streamed from the fake model (a) read directly over HTTP and (b)
 * through the agent to an ACP client over pipes. Prints both medians, the ratio and chunks per second.
 * Run: bench/streaming.sh [chunks] [rounds]
 */
public final class StreamingBenchmark {
    public static void main(String[] args) throws Exception {
        int chunks = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        try (FakeModelServer model = FakeModelServer.start()) {
            model.whenEmpty(Script.reply().repeatedText("token ", chunks));
            List<Double> direct = new ArrayList<>();
            List<Double> cancels = new ArrayList<>();
            List<Double> viaAgent = new ArrayList<>();
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            Path tmp = Files.createTempDirectory("bench-stream");
            env.put("AGENT_SESSIONS_DIR", tmp.resolve("store").toString());
            try (AgentProcess agent = AgentProcess.start(env, "--acp")) {
                agent.call("initialize", Json.object().put("protocolVersion", 1));
                String id = agent.call("session/new", Json.object().put("cwd", tmp.toString())
                        .set("mcpServers", Json.MAPPER.createArrayNode())).path("result").path("sessionId").asText();
                for (int r = -1; r < rounds; r++) { // round -1 warms up both paths
                    double d = readDirect(model, chunks);
                    double a = throughAgent(agent, id, chunks);
                    if (r >= 0) {
                        direct.add(d);
                        viaAgent.add(a);
                    }
                }
                model.when(FakeModelServer.lastUserMessageContains("hang")).replyAlways(Script.reply().text("x").hang());
                for (int r = 0; r < rounds; r++) cancels.add(cancelLatency(agent, id));
            }
            double md = median(direct), ma = median(viaAgent);
            System.out.printf("chunks=%d rounds=%d%n", chunks, rounds);
            System.out.printf("direct HTTP read:   median %.0f ms (%.0f chunks/s)%n", md, chunks / md * 1000);
            System.out.printf("through the agent:  median %.0f ms (%.0f chunks/s)%n", ma, chunks / ma * 1000);
            System.out.printf("ratio agent/direct: %.2f%n", ma / md);
            System.out.printf("session/cancel -> prompt answered 'cancelled': median %.0f ms, max %.0f ms%n",
                    median(cancels), Collections.max(cancels));
        }
    }

    /** Reads the SSE stream directly, counting content deltas. */
    static double readDirect(FakeModelServer model, int chunks) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String body = "{\"model\":\"fake-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}";
        HttpRequest req = HttpRequest.newBuilder(URI.create(model.baseUrl() + "/chat/completions"))
                .header("Authorization", "Bearer " + FakeModelServer.API_KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        long t0 = System.nanoTime();
        HttpResponse<java.io.InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        int seen = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.startsWith("data: ") || line.equals("data: [DONE]")) continue;
                JsonNode delta = Json.MAPPER.readTree(line.substring(6)).path("choices").path(0).path("delta").path("content");
                if (delta.isTextual()) seen++;
            }
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        if (seen != chunks) throw new IllegalStateException("direct read saw " + seen + " chunks");
        return ms;
    }

    static double throughAgent(AgentProcess agent, String id, int chunks) throws Exception {
        int before = count(agent, id);
        ObjectNode p = Json.object().put("sessionId", id);
        p.putArray("prompt").addObject().put("type", "text").put("text", "go");
        long t0 = System.nanoTime();
        JsonNode r = agent.call("session/prompt", p, Duration.ofMinutes(2));
        double ms = (System.nanoTime() - t0) / 1e6;
        if (!"end_turn".equals(r.path("result").path("stopReason").asText())) throw new IllegalStateException(r.toString());
        int seen = count(agent, id) - before;
        if (seen != chunks) throw new IllegalStateException("client saw " + seen + " chunks");
        return ms;
    }

    /** A turn whose model stream never ends: time from session/cancel to the 'cancelled' answer. */
    static double cancelLatency(AgentProcess agent, String id) throws Exception {
        ObjectNode p = Json.object().put("sessionId", id);
        p.putArray("prompt").addObject().put("type", "text").put("text", "hang");
        long rid = agent.start("session/prompt", p);
        int before = count(agent, id);
        while (count(agent, id) == before) Thread.sleep(1);
        long t0 = System.nanoTime();
        agent.notify("session/cancel", Json.object().put("sessionId", id));
        JsonNode r = agent.awaitResponse(rid, Duration.ofSeconds(10));
        double ms = (System.nanoTime() - t0) / 1e6;
        if (!"cancelled".equals(r.path("result").path("stopReason").asText())) throw new IllegalStateException(r.toString());
        return ms;
    }

    static int count(AgentProcess agent, String id) {
        return (int) agent.updates(id).stream().filter(u -> "agent_message_chunk".equals(u.path("sessionUpdate").asText())).count();
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
