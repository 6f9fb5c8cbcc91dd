package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.sandbox.Sandboxes;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Background commands through the real agent over ACP with the scripted model: started in the sandbox and outside it,
 * listed by {@code /ps} and in the system prompt, and none left once the session closes or the agent is killed with
 * SIGKILL.
 */
@Timeout(180)
class AcpBackgroundCommandsIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    AgentProcess agent;
    String session;
    final List<ProcessHandle> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        agent = startAgent(dir, model);
        session = initialize(agent, Json.object(), Files.createDirectories(dir.resolve("ws")));
    }

    /** The agent over ACP, its store and configuration under {@code dir}, every permission it asks allowed once. */
    static AgentProcess startAgent(Path dir, FakeModelServer model) throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        AgentProcess agent = AgentProcess.start(env, "--acp");
        agent.onClientRequest("session/request_permission", params -> {
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", "allow_once");
            return r;
        });
        return agent;
    }

    /** Initializes with {@code clientCapabilities} and opens a session in {@code ws}; returns its id. */
    static String initialize(AgentProcess agent, ObjectNode clientCapabilities, Path ws) throws InterruptedException {
        ObjectNode init = Json.object().put("protocolVersion", 1);
        init.set("clientCapabilities", clientCapabilities);
        assertTrue(agent.call("initialize", init).has("result"));
        return agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                .path("result").path("sessionId").asText();
    }

    @AfterEach
    void stop() {
        try {
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC lines");
        } finally {
            seen.forEach(ProcessHandle::destroyForcibly); // a failing test leaves no sleeper behind
            agent.close();
            model.close();
        }
    }

    private void prompt(String text) throws InterruptedException {
        prompt(agent, session, text);
    }

    static void prompt(AgentProcess agent, String session, String text) throws InterruptedException {
        assertTrue(agent.call("session/prompt", AgentProcess.prompt(session, text), Duration.ofSeconds(90)).has("result"));
    }

    /** run_shell_command's arguments to start {@code command} in the background, in the sandbox or outside it. */
    static String background(String command, boolean sandbox) {
        ObjectNode args = Json.object().put("command", command).put("background", true);
        if (!sandbox) args.put("sandbox", false).put("description", "needs to outlive nothing");
        return args.toString();
    }

    /** The agent's descendants that belong to the background commands (found by their markers, the sandbox, the guard). */
    private List<ProcessHandle> backgroundProcesses(String... markers) {
        List<ProcessHandle> found = agent.process().descendants().filter(h -> {
            String line = h.info().commandLine().orElse("");
            if (line.contains("bwrap") || line.contains("agent-background-guard")) return true;
            for (String m : markers) if (line.contains(m)) return true;
            return false;
        }).toList();
        seen.addAll(found);
        return found;
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("never: " + what);
            Thread.sleep(20);
        }
    }

    @Test
    void commandsInTheBackgroundAreListedAndNoneOutlivesTheAgentKilledWithSigkill() throws Exception {
        assumeTrue(Sandboxes.fromEnvironment(System.getenv()).available(), "a sandbox works here");
        model.enqueue(Script.reply()
                .toolCall("t1", "run_shell_command", background("echo sandboxed-up; exec sleep 1011", true))
                .toolCall("t2", "run_shell_command", background("echo outside-up; exec sleep 1012", false))
                .finish("tool_calls"), Script.textReply("started"));
        prompt("start them");
        String results = model.requests().get(1).rawBody();
        assertTrue(results.contains("Started in the background as bg1") && results.contains("sandboxed-up"), results);
        assertTrue(results.contains("Started in the background as bg2") && results.contains("outside-up"), results);

        prompt("/ps");
        String ps = agent.agentText(session);
        assertTrue(ps.contains("bg1: `echo sandboxed-up; exec sleep 1011`") && ps.contains("sandboxed): running"), ps);
        assertTrue(ps.contains("bg2: `echo outside-up; exec sleep 1012`") && ps.contains("outside the sandbox): running"), ps);

        model.enqueue(Script.textReply("ok"));
        prompt("what runs?");
        String system = model.lastRequest().rawBody();
        assertTrue(system.contains("Background commands running") && system.contains("sleep 1011") && system.contains("sleep 1012"), system);

        List<ProcessHandle> running = backgroundProcesses("sleep 1011", "sleep 1012");
        assertTrue(running.stream().anyMatch(h -> h.info().commandLine().orElse("").contains("sleep 1011")), running.toString());
        assertTrue(running.stream().anyMatch(h -> h.info().commandLine().orElse("").contains("sleep 1012")), running.toString());
        agent.process().destroyForcibly(); // SIGKILL: nothing of the agent runs to clean up
        agent.process().waitFor();
        await("every background process ended after the agent was killed: " + running,
                () -> running.stream().noneMatch(LocalCommandRunner::isRunning));
    }

    @Test
    void closingTheSessionEndsItsBackgroundCommands() throws Exception {
        model.enqueue(Script.reply().toolCall("t1", "run_shell_command", background("exec sleep 1013", false))
                .finish("tool_calls"), Script.textReply("started"));
        prompt("start it");
        List<ProcessHandle> running = backgroundProcesses("sleep 1013");
        assertTrue(running.stream().anyMatch(h -> h.info().commandLine().orElse("").contains("sleep 1013")), running.toString());
        assertTrue(agent.call("session/close", Json.object().put("sessionId", session)).has("result"));
        await("the background command ended with its session", () -> running.stream().noneMatch(LocalCommandRunner::isRunning));
        assertTrue(agent.process().isAlive(), "the agent itself runs on");
    }
}
