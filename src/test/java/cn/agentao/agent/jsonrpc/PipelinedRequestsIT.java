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
                // nobody reads the answers: the agent must stop taking requests, so the client's writes block
                client.join(TimeUnit.SECONDS.toMillis(20));
                assertTrue(client.isAlive(), "the agent read all " + REQUESTS + " requests while none of its answers was read");
                assertTrue(written.get() < REQUESTS, "written: " + written.get());

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
