package cn.agentao.agent.bench;

import cn.agentao.agent.store.postgres.PostgresStoreConfig;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.PostgresServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the lease per turn costs a short ACP turn ({@code session/prompt} of a one-chunk answer, round trip): this
 * agent on the file store (lease held while the session is open, as before) against a reference agent (e.g. main's,
 * built in a clone) on the file store, and this agent on PostgreSQL (a lease, i.e. a connection and an advisory lock,
 * taken and released in every turn; the reference on PostgreSQL too, holding its lease while the session is open),
 * the agents taking turns so that the machine's load hits all alike. Prints the median per turn of each and the ratios.
 * Run: bench/turns.sh [REFERENCE_BIN_AGENT] [turns] [rounds]
 */
public final class TurnLeaseBenchmark {
    public static void main(String[] args) throws Exception {
        Path reference = args.length > 0 && !args[0].equals("-") ? Path.of(args[0]) : null;
        int turns = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path tmp = Files.createTempDirectory("bench-turns");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        try (FakeModelServer model = FakeModelServer.start().whenEmpty(Script.textReply("ok"))) {
            PostgresStoreConfig db = PostgresServer.shared().freshDatabase();
            Map<String, AgentProcess> agents = new LinkedHashMap<>();
            Map<String, String> fileEnv = new HashMap<>(model.openAiEnvironment());
            fileEnv.put("AGENT_SESSIONS_DIR", tmp.resolve("store").toString());
            if (reference != null) {
                Map<String, String> refEnv = new HashMap<>(fileEnv);
                refEnv.put("PATH", System.getenv("PATH"));
                refEnv.put("HOME", tmp.toString());
                refEnv.put("XDG_CONFIG_HOME", tmp.resolve("ref-config").toString());
                if (System.getenv("JAVA_HOME") != null) refEnv.put("JAVA_HOME", System.getenv("JAVA_HOME"));
                refEnv.put("AGENT_SESSIONS_DIR", tmp.resolve("ref-store").toString());
                agents.put("reference, file store", AgentProcess.startExactly(reference, refEnv, "--acp"));
                Map<String, String> refPg = new HashMap<>(refEnv);
                refPg.put("AGENT_STORE", PostgresServer.shared().freshDatabase().display());
                refPg.put("AGENT_SESSIONS_DIR", tmp.resolve("ref-unused").toString());
                agents.put("reference, PostgreSQL", AgentProcess.startExactly(reference, refPg, "--acp"));
            }
            agents.put("this, file store", AgentProcess.start(fileEnv, "--acp"));
            Map<String, String> pgEnv = new HashMap<>(model.openAiEnvironment());
            pgEnv.put("AGENT_STORE", db.display());
            pgEnv.put("AGENT_SESSIONS_DIR", tmp.resolve("unused").toString());
            agents.put("this, PostgreSQL (lease per turn)", AgentProcess.start(pgEnv, "--acp"));

            Map<String, String> sessions = new HashMap<>();
            Map<String, List<Double>> perTurn = new LinkedHashMap<>();
            for (var e : agents.entrySet()) {
                e.getValue().call("initialize", Json.object().put("protocolVersion", 1));
                ObjectNode setup = Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode());
                sessions.put(e.getKey(), e.getValue().call("session/new", setup).path("result").path("sessionId").asText());
                perTurn.put(e.getKey(), new ArrayList<>());
            }
            for (int r = -1; r < rounds; r++) { // round -1 warms up
                for (var e : agents.entrySet()) {
                    ObjectNode p = Json.object().put("sessionId", sessions.get(e.getKey()));
                    p.putArray("prompt").addObject().put("type", "text").put("text", "hi");
                    long t0 = System.nanoTime();
                    for (int i = 0; i < turns; i++) {
                        var answer = e.getValue().call("session/prompt", p);
                        if (!answer.path("result").path("stopReason").asText().equals("end_turn")) {
                            throw new IllegalStateException(e.getKey() + ": " + answer);
                        }
                    }
                    if (r >= 0) perTurn.get(e.getKey()).add((System.nanoTime() - t0) / 1e6 / turns);
                }
            }
            Map<String, Double> medians = new LinkedHashMap<>();
            perTurn.forEach((k, v) -> medians.put(k, median(v)));
            medians.forEach((k, v) -> System.out.printf("%-38s %.2f ms per turn (median of %d rounds of %d turns)%n", k, v, rounds, turns));
            double file = medians.get("this, file store");
            if (reference != null) {
                System.out.printf("ratio this / reference, file store: %.2f%n", file / medians.get("reference, file store"));
                System.out.printf("ratio this / reference, PostgreSQL (lease per turn / lease while open): %.2f%n",
                        medians.get("this, PostgreSQL (lease per turn)") / medians.get("reference, PostgreSQL"));
            }
            System.out.printf("ratio PostgreSQL / file store (this agent): %.2f%n", medians.get("this, PostgreSQL (lease per turn)") / file);
            for (AgentProcess a : agents.values()) a.close();
        }
        System.exit(0);
    }

    private static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }
}
