package cn.agentao.agent.bench;

import cn.agentao.agent.door.agora.AgoraTestServer;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Mentions in N spaces at once (default 20) answered by {@code agent agora} against the scripted model: the time
 * from a mention being said to the agent's answer arriving at the server (the whole answer is one publish, so its
 * first byte), per space and for all N; the reference, measured in the same run, is the same N prompts sent at once
 * to N sessions of {@code agent --acp}, each until its {@code session/prompt} answer. Prints medians and the ratio.
 * Run: bench/agora.sh [spaces] [rounds]
 */
public final class AgoraBenchmark {
    private static final Duration WAIT = Duration.ofSeconds(120);

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String[] spaces = new String[n];
        for (int i = 0; i < n; i++) spaces[i] = "space-" + i;
        Path tmp = Files.createTempDirectory("bench-agora");
        try (FakeModelServer model = FakeModelServer.start(); AgoraTestServer server = AgoraTestServer.start(spaces)) {
            model.whenEmpty(Script.reply().text("The ", "answer ", "is ", "forty-two."));
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", tmp.resolve("store").toString());
            List<String> cmd = new ArrayList<>(List.of("agora", "--url", server.url().toString(), "--agent-id", "bot",
                    "--max-per-minute", "1000"));
            for (String s : spaces) cmd.addAll(List.of("--space", s));
            try (AgentProcess agora = AgentProcess.start(env, cmd.toArray(String[]::new));
                 AgentProcess acp = AgentProcess.start(env, "--acp")) {
                for (String s : spaces) server.awaitMember(s, "bot", WAIT);
                acp.call("initialize", Json.object().put("protocolVersion", 1));
                List<String> sessions = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    ObjectNode p = Json.object().put("cwd", tmp.toString());
                    p.putArray("mcpServers");
                    sessions.add(acp.call("session/new", p).path("result").path("sessionId").asText());
                }
                List<Double> perSpace = new ArrayList<>(), allAgora = new ArrayList<>(), allAcp = new ArrayList<>();
                int answered = 0;
                for (int r = -2; r < rounds; r++) { // two warm-up rounds
                    long start = System.nanoTime();
                    long[] said = new long[n];
                    for (int i = 0; i < n; i++) {
                        said[i] = System.nanoTime();
                        server.say(spaces[i], "alice", "@bot round " + r + ": what is the answer?");
                    }
                    long last = 0;
                    for (int i = 0; i < n; i++) {
                        var pub = server.awaitNth(answered / n + 1, AgoraTestServer.published(spaces[i]), WAIT);
                        if (r >= 0) perSpace.add((pub.nanos() - said[i]) / 1e6);
                        last = Math.max(last, pub.nanos());
                    }
                    answered += n;
                    if (r >= 0) allAgora.add((last - start) / 1e6);

                    long acpStart = System.nanoTime();
                    List<Long> ids = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        ObjectNode p = Json.object().put("sessionId", sessions.get(i));
                        p.putArray("prompt").addObject().put("type", "text").put("text", "round " + r + ": what is the answer?");
                        ids.add(acp.start("session/prompt", p));
                    }
                    for (long id : ids) acp.awaitResponse(id, WAIT);
                    if (r >= 0) allAcp.add((System.nanoTime() - acpStart) / 1e6);
                }
                double agoraAll = median(allAgora), acpAll = median(allAcp);
                System.out.printf("spaces=%d rounds=%d%n", n, rounds);
                System.out.printf("agora: mention -> answer published, per space: median %.1f ms, max %.1f ms%n", median(perSpace), Collections.max(perSpace));
                System.out.printf("agora: %d mentions at once, all answered: median %.1f ms%n", n, agoraAll);
                System.out.printf("acp (reference): %d prompts at once, all answered: median %.1f ms%n", n, acpAll);
                System.out.printf("ratio agora / acp: %.2f%n", agoraAll / acpAll);
            }
        }
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
