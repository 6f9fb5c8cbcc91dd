package cn.agentao.agent.jsonrpc;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A client that pipelines far more requests than are answered: the agent stops reading while a bounded number is in
 * flight (its input then backs up into the client's pipe) instead of taking them all into memory, and answers every
 * one once the client reads again.
 */
class PipelinedRequestsIT {
    static final int REQUESTS = 100_000;
    /** Far above what the agent may take in without answers read, far below what it took before it pushed back. */
    static final int MAX_TAKEN = 30_000;

    /** Waits until the client has written nothing for 5 s running (or finished, or 3 minutes passed); returns how much it wrote. */
    private static int awaitStall(AtomicInteger written, Thread client) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        int last = -1, still = 0;
        while (client.isAlive() && still < 5 && System.nanoTime() < deadline) {
            Thread.sleep(1000);
            int now = written.get();
            still = now == last ? still + 1 : 0;
            last = now;
        }
        return written.get();
    }

    @TempDir
    Path dir;

    @Test
    void theAgentStopsReadingWhileItsAnswersAreNotReadAndLosesNothing() throws Exception {
        try (FakeModelServer model = FakeModelServer.start()) {
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
            Process agent = AgentProcess.command(env, "--acp").redirectError(dir.resolve("stderr.txt").toFile()).start();
            try {
                OutputStream in = agent.getOutputStream();
                BufferedReader out = new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8));
                in.write("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n"
                        .getBytes(StandardCharsets.UTF_8));
                in.flush();
                assertTrue(out.readLine().contains("\"id\":0"));

                AtomicInteger written = new AtomicInteger();
                Thread client = Thread.ofPlatform().daemon().start(() -> {
                    try {
                        for (int i = 1; i <= REQUESTS; i++) {
                            in.write(("{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"session/list\",\"params\":{}}\n")
                                    .getBytes(StandardCharsets.UTF_8));
                            written.incrementAndGet();
                        }
                        in.flush();
                    } catch (Exception e) {
                        // the agent went away: the assertions below say so
                    }
                });
                // nobody reads the answers: the agent must stop taking requests, so the client's writes stall. What
                // it takes before is bounded by design (the writer's queue and the batch being written, the requests in
                // flight, the pipes), whatever the machine's speed: about 10,000 one-line requests
                int stalledAt = awaitStall(written, client);
                assertTrue(client.isAlive(), "the agent read all " + REQUESTS + " requests while none of its answers was read");
                assertTrue(stalledAt < MAX_TAKEN, "the agent took " + stalledAt + " requests while none of its answers was read");

                // reading again: every request is answered, none lost
                int answered = 0;
                for (String line; answered < REQUESTS && (line = out.readLine()) != null; ) {
                    assertTrue(line.contains("\"sessions\""), line);
                    answered++;
                }
                assertEquals(REQUESTS, answered);
                client.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(client.isAlive());
                assertTrue(agent.isAlive(), "the agent is still running");
            } finally {
                agent.destroy();
                agent.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
