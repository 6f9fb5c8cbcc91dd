package cn.agentao.agent.bench;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.record.RecordTypes;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SyncPolicy;
import cn.agentao.agent.store.postgres.PostgresSessionRepository;
import cn.agentao.agent.store.postgres.PostgresStoreConfig;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.PostgresServer;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessageSerializer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The PostgreSQL store against the file store, measured in the same run so that the machine's load hits both alike:
 * appends per second through a lease (the file store fsyncs each; PostgreSQL commits each, on the throwaway local
 * server {@link PostgresServer} starts, which runs with fsync=off: an upper bound for a real server), and session/load with replay of an N-message session
 * (default 10,000) through the agent, the two agents taking turns. Prints each figure and the ratio PostgreSQL / file.
 * Run: bench/store-postgres.sh [messages] [rounds]
 */
public final class PostgresStoreBenchmark {
    public static void main(String[] args) throws Exception {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path tmp = Files.createTempDirectory("bench-pg");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        PostgresStoreConfig db = PostgresServer.shared().freshDatabase();
        SessionStore files = new SessionStore(tmp.resolve("store"), SyncPolicy.FSYNC);
        try (PostgresSessionRepository pg = new PostgresSessionRepository(db)) {
            double fileRate = 0, pgRate = 0;
            for (int r = 0; r < 3; r++) { // the last of three alternating rounds counts (the first warms up)
                fileRate = appendsPerSecond(files, ws, 2_000);
                pgRate = appendsPerSecond(pg, ws, 2_000);
            }
            System.out.printf("appends/s (one lease, one thread; file: fsync each, PostgreSQL: commit each, test server fsync=off): file %.0f, PostgreSQL %.0f; ratio PostgreSQL / file %.2f%n",
                    fileRate, pgRate, pgRate / fileRate);

            String id = UUID.randomUUID().toString();
            write(files, id, ws, messages);
            write(pg, id, ws, messages);
            Map<String, String> fileEnv = Map.of("OPENAI_API_KEY", "bench", "AGENT_SESSIONS_DIR", tmp.resolve("store").toString());
            Map<String, String> pgEnv = Map.of("OPENAI_API_KEY", "bench", "AGENT_STORE", db.display(),
                    "AGENT_SESSIONS_DIR", tmp.resolve("unused").toString());
            List<Double> fileTimes = new ArrayList<>();
            List<Double> pgTimes = new ArrayList<>();
            try (AgentProcess fileAgent = AgentProcess.start(fileEnv, "--acp"); AgentProcess pgAgent = AgentProcess.start(pgEnv, "--acp")) {
                fileAgent.call("initialize", Json.object().put("protocolVersion", 1));
                pgAgent.call("initialize", Json.object().put("protocolVersion", 1));
                for (int r = -1; r < rounds; r++) { // round -1 warms up
                    double f = SessionLoadBenchmark.load(fileAgent, id, ws, messages);
                    double p = SessionLoadBenchmark.load(pgAgent, id, ws, messages);
                    if (r >= 0) {
                        fileTimes.add(f);
                        pgTimes.add(p);
                    }
                }
            }
            double fm = SessionLoadBenchmark.median(fileTimes), pm = SessionLoadBenchmark.median(pgTimes);
            System.out.printf("session/load with replay of %d messages: file median %.0f ms, PostgreSQL median %.0f ms over %d rounds;"
                    + " ratio PostgreSQL / file %.2f%n", messages, fm, pm, rounds, pm / fm);
        }
    }

    private static double appendsPerSecond(SessionRepository repo, Path ws, int n) {
        long t0 = System.nanoTime();
        try (SessionLease lease = repo.create(UUID.randomUUID().toString(), ws, null)) {
            for (int i = 0; i < n; i++) lease.append("note", Json.object().put("text", "append " + i));
        }
        return n / ((System.nanoTime() - t0) / 1e9);
    }

    private static void write(SessionRepository repo, String id, Path ws, int messages) {
        String sentence = "This is a fairly ordinary message of about two hundred characters, the length of a typical "
                + "question or answer in a coding conversation, repeated to build a long history.";
        try (SessionLease w = repo.create(id, ws, Json.object())) {
            for (int i = 0; i < messages / 2; i++) {
                ObjectNode user = Json.object();
                user.set("content", ContentBlock.toTree(List.of(ContentBlock.text("Question " + i + ": " + sentence))));
                w.append(RecordTypes.USER_MESSAGE, user);
                w.append(RecordTypes.MODEL_MESSAGE, Json.object().put("message",
                        ChatMessageSerializer.messageToJson(AiMessage.from("Answer " + i + ": " + sentence))));
            }
        }
    }
}
