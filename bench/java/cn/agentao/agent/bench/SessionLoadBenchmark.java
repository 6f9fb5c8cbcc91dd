package cn.agentao.agent.bench;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.record.RecordTypes;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SessionWriter;
import cn.agentao.agent.store.SyncPolicy;
import cn.agentao.agent.testing.AgentProcess;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessageSerializer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * session/load of a saved conversation of N messages (default 10,000: half prompts, half answers) through
 * the agent, replay included: from request to response, with every replayed update received first; then
 * session/fork of the same conversation (a new saved session with that history), as a ratio to the load.
 * With a third argument, another build's {@code bin/agent} (e.g. main's, built in another clone), the two
 * agents take turns loading the same session and the ratio of their medians is printed: a before/after that
 * the machine's load affects alike.
 * Run: bench/session-load.sh [messages] [rounds] [reference bin/agent]
 */
public final class SessionLoadBenchmark {
    public static void main(String[] args) throws Exception {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path referenceAgent = args.length > 2 ? Path.of(args[2]).toAbsolutePath() : null;
        Path tmp = Files.createTempDirectory("bench-load");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        SessionStore store = new SessionStore(tmp.resolve("store"), SyncPolicy.NO_FSYNC);
        String id = UUID.randomUUID().toString();
        String sentence = "This is a fairly ordinary message of about two hundred characters, the length of a typical "
                + "question or answer in a coding conversation, repeated to build a long history.";
        try (SessionWriter w = store.create(id, ws, Json.object())) {
            for (int i = 0; i < messages / 2; i++) {
                ObjectNode user = Json.object();
                user.set("content", ContentBlock.toTree(List.of(ContentBlock.text("Question " + i + ": " + sentence))));
                w.append(RecordTypes.USER_MESSAGE, user);
                w.append(RecordTypes.MODEL_MESSAGE, Json.object().put("message",
                        ChatMessageSerializer.messageToJson(AiMessage.from("Answer " + i + ": " + sentence))));
            }
        }
        System.out.printf("session file: %d messages, %.1f MiB%n", messages, Files.size(store.logFile(id)) / 1048576.0);
        Map<String, String> env = Map.of("OPENAI_API_KEY", "bench", "AGENT_SESSIONS_DIR", tmp.resolve("store").toString());
        List<Double> times = new ArrayList<>();
        List<Double> referenceTimes = new ArrayList<>();
        List<Double> forks = new ArrayList<>();
        try (AgentProcess agent = AgentProcess.start(env, "--acp");
             AgentProcess reference = referenceAgent == null ? null : AgentProcess.startExactly(referenceAgent, withPath(env), "--acp")) {
            agent.call("initialize", Json.object().put("protocolVersion", 1));
            if (reference != null) reference.call("initialize", Json.object().put("protocolVersion", 1));
            for (int r = -1; r < rounds; r++) { // round -1 warms up; the two builds take turns, so load hits both alike
                double ms = load(agent, id, ws, messages);
                if (r >= 0) times.add(ms);
                if (reference != null) {
                    double refMs = load(reference, id, ws, messages);
                    if (r >= 0) referenceTimes.add(refMs);
                }
            }
            for (int r = -1; r < rounds; r++) {
                ObjectNode fork = Json.object().put("sessionId", id).put("cwd", ws.toString());
                long t0 = System.nanoTime();
                JsonNode resp = agent.call("session/fork", fork, Duration.ofMinutes(2));
                double ms = (System.nanoTime() - t0) / 1e6;
                if (!resp.has("result")) throw new IllegalStateException(resp.toString());
                if (r >= 0) forks.add(ms);
                agent.call("session/close", Json.object().put("sessionId", resp.path("result").path("sessionId").asText()));
            }
        }
        double median = median(times);
        System.out.printf("session/load with replay: median %.0f ms, min %.0f ms, max %.0f ms over %d rounds%n",
                median, times.get(0), times.get(times.size() - 1), rounds);
        double forkMedian = median(forks);
        System.out.printf("session/fork (copy, one write): median %.0f ms, min %.0f ms, max %.0f ms; %.2f x the load%n",
                forkMedian, forks.get(0), forks.get(forks.size() - 1), forkMedian / median);
        if (referenceAgent != null) {
            double refMedian = median(referenceTimes);
            System.out.printf("reference %s: median %.0f ms, min %.0f ms, max %.0f ms; ratio this / reference %.2f%n",
                    referenceAgent, refMedian, referenceTimes.get(0), referenceTimes.get(referenceTimes.size() - 1), median / refMedian);
        }
    }

    /** One session/load with its replay, from request to response (every replayed update arrives first); then session/close. */
    static double load(AgentProcess agent, String id, Path ws, int messages) throws Exception {
        ObjectNode load = Json.object().put("sessionId", id).put("cwd", ws.toString());
        load.set("mcpServers", Json.mapper().createArrayNode());
        int before = agent.updates(id).size();
        long t0 = System.nanoTime();
        JsonNode resp = agent.call("session/load", load, Duration.ofMinutes(2));
        double ms = (System.nanoTime() - t0) / 1e6;
        if (!resp.has("result")) throw new IllegalStateException(resp.toString());
        int replayed = agent.updates(id).size() - before;
        if (replayed < messages) throw new IllegalStateException("replayed only " + replayed);
        agent.call("session/close", Json.object().put("sessionId", id));
        return ms;
    }

    static double median(List<Double> times) {
        Collections.sort(times);
        return times.get(times.size() / 2);
    }

    /** {@code env} plus what a launcher needs from this environment (startExactly passes nothing else), config elsewhere. */
    private static Map<String, String> withPath(Map<String, String> env) throws java.io.IOException {
        Map<String, String> all = new java.util.HashMap<>(env);
        Path tmp = Files.createTempDirectory("bench-ref");
        all.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
        all.put("XDG_DATA_HOME", tmp.resolve("data").toString());
        for (String k : List.of("PATH", "HOME", "JAVA_HOME", "LANG", "TMPDIR")) {
            String v = System.getenv(k);
            if (v != null) all.put(k, v);
        }
        return all;
    }
}
