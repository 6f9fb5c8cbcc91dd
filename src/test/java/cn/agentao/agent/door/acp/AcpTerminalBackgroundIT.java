package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.sandbox.Sandboxes;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Background commands shown in the ACP client's terminals: the real agent over ACP with the scripted model, and a
 * client that implements {@code terminal/*} as an editor does, by running the command it is given as its own child
 * (with its own environment, plus what the request adds). The terminal shows the output, {@code shell_output} and
 * {@code shell_kill} work through it, the sandbox still applies, no credential reaches the command, and nothing the
 * terminal started outlives the agent killed with SIGKILL.
 */
@Timeout(180)
class AcpTerminalBackgroundIT {
    /** A credential in the client's (the editor's) own environment: the command must not see it. */
    static final String CLIENT_SECRET = "sk-ant-client0only0secret0value0000000";

    @TempDir
    Path dir;
    Path ws;
    FakeModelServer model;
    AgentProcess agent;
    String session;
    final Terminals terminals = new Terminals();

    /** The client's terminals: each runs its command as a child of the test (the editor), output kept whole. */
    static final class Terminals {
        static final class Term {
            final Process process;
            final StringBuffer output = new StringBuffer();
            final Thread pump;

            Term(Process process) {
                this.process = process;
                this.pump = Thread.ofVirtual().start(() -> {
                    byte[] buf = new byte[4096];
                    try (InputStream in = process.getInputStream()) {
                        int n;
                        while ((n = in.read(buf)) >= 0) output.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    } catch (IOException ignored) {
                        // ended
                    }
                });
            }
        }

        final Map<String, Term> open = new ConcurrentHashMap<>();
        final List<Term> all = new CopyOnWriteArrayList<>();
        final List<JsonNode> creates = new CopyOnWriteArrayList<>();
        final List<String> calls = new CopyOnWriteArrayList<>();
        final AtomicInteger next = new AtomicInteger(1);
        /** A terminal that cannot run what it is given: it runs this instead. */
        volatile List<String> instead;

        void serve(AgentProcess agent) {
            agent.onClientRequest("terminal/create", p -> {
                creates.add(p);
                List<String> argv = new ArrayList<>();
                argv.add(p.path("command").asText());
                p.path("args").forEach(a -> argv.add(a.asText()));
                ProcessBuilder pb = new ProcessBuilder(instead != null ? instead : argv).redirectErrorStream(true);
                if (p.hasNonNull("cwd")) pb.directory(Path.of(p.get("cwd").asText()).toFile());
                pb.environment().put("ANTHROPIC_API_KEY", CLIENT_SECRET); // the editor's own environment
                pb.environment().put("EDITOR_ONLY_VARIABLE", "editor-only-value");
                p.path("env").forEach(v -> pb.environment().put(v.path("name").asText(), v.path("value").asText()));
                try {
                    Term t = new Term(pb.start());
                    all.add(t);
                    String id = "term-" + next.getAndIncrement();
                    open.put(id, t);
                    calls.add("create " + id);
                    return Json.object().put("terminalId", id);
                } catch (IOException e) {
                    return null;
                }
            });
            agent.onClientRequest("terminal/output", p -> {
                Term t = open.get(p.path("terminalId").asText());
                if (t == null) return null;
                ObjectNode r = Json.object().put("output", t.output.toString()).put("truncated", false);
                if (!t.process.isAlive()) r.putObject("exitStatus").put("exitCode", t.process.exitValue());
                return r;
            });
            agent.onClientRequest("terminal/wait_for_exit", p -> {
                Term t = open.get(p.path("terminalId").asText());
                if (t == null) return null;
                try {
                    int code = t.process.waitFor();
                    t.pump.join(2000);
                    return Json.object().put("exitCode", code);
                } catch (InterruptedException e) {
                    return null;
                }
            });
            agent.onClientRequest("terminal/kill", p -> {
                calls.add("kill " + p.path("terminalId").asText());
                Term t = open.get(p.path("terminalId").asText());
                if (t == null) return null;
                t.process.destroy();
                return Json.object();
            });
            agent.onClientRequest("terminal/release", p -> {
                calls.add("release " + p.path("terminalId").asText());
                Term t = open.remove(p.path("terminalId").asText());
                if (t == null) return null;
                t.process.destroy();
                return Json.object();
            });
        }

        /** Processes the terminals started (the terminal's own and everything under it) whose command line holds {@code marker}. */
        List<ProcessHandle> running(String marker) {
            List<ProcessHandle> found = new ArrayList<>();
            for (Term t : all) {
                t.process.descendants().filter(h -> h.info().commandLine().orElse("").contains(marker)).forEach(found::add);
            }
            return found;
        }

        void close() {
            for (Term t : all) {
                t.process.descendants().forEach(ProcessHandle::destroyForcibly);
                t.process.destroyForcibly();
            }
        }
    }

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        ws = Files.createDirectories(dir.resolve("ws"));
        agent = AcpBackgroundCommandsIT.startAgent(dir, model);
        terminals.serve(agent);
        session = AcpBackgroundCommandsIT.initialize(agent, Json.object().put("terminal", true), ws);
    }

    @AfterEach
    void stop() {
        try {
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC lines");
        } finally {
            terminals.close(); // a failing test leaves no sleeper behind
            agent.close();
            model.close();
        }
    }

    private void prompt(String text) throws InterruptedException {
        AcpBackgroundCommandsIT.prompt(agent, session, text);
    }

    private static String background(String command, boolean sandbox) {
        return AcpBackgroundCommandsIT.background(command, sandbox);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        AcpBackgroundCommandsIT.await(what, condition);
    }

    /** The model's last request (the conversation so far). */
    private String toldModel() {
        return model.lastRequest().rawBody();
    }

    /** What the client was shown of tool call {@code toolCallId}. */
    private String shown(String toolCallId) {
        return agent.updates(session).stream().filter(u -> u.path("toolCallId").asText().equals(toolCallId))
                .map(u -> u.path("content").toString()).reduce("", String::concat);
    }

    private boolean shownAsTerminal(String toolCallId, String terminalId) {
        return agent.updates(session).stream().anyMatch(u -> u.path("toolCallId").asText().equals(toolCallId)
                && u.path("content").toString().contains("{\"type\":\"terminal\",\"terminalId\":\"" + terminalId + "\""));
    }

    @Test
    void theClientsTerminalShowsItAndShellOutputAndShellKillWorkThroughIt() throws Exception {
        assumeTrue(ClientTerminalBackground.available(), "setsid, env and mkfifo are here");
        model.enqueue(Script.reply().toolCall("t1", "run_shell_command",
                        background("echo first-$((6*7)); until [ -e go ]; do sleep 0.05; done; echo second-$((7*7)); exec sleep 1021", false))
                .finish("tool_calls"), Script.textReply("started"));
        prompt("start it");
        assertEquals(1, terminals.creates.size(), "the command went to the client's terminal: " + terminals.calls);
        assertTrue(shownAsTerminal("t1", "term-1"), "the tool call shows the terminal: " + agent.updates(session));
        String started = toldModel();
        assertTrue(started.contains("Started in the background as bg1"), started);

        Terminals.Term term = terminals.all.get(0);
        Files.createFile(ws.resolve("go"));
        await("the terminal shows the second line", () -> term.output.toString().contains("second-49"));
        assertTrue(term.output.toString().contains("first-42"), "the editor shows what it printed: " + term.output);
        model.enqueue(Script.reply().toolCall("t2", "shell_output", "{\"id\":\"bg1\"}").finish("tool_calls"), Script.textReply("read"));
        prompt("read it");
        String read = shown("t2");
        assertTrue(read.contains("second-49") && read.contains("bg1 is still running"), read);
        String both = shown("t1") + read; // the first line came with the start or with this read (a slow start), once
        assertEquals(both.indexOf("first-42"), both.lastIndexOf("first-42"), "only what is new since the last read: " + both);
        assertTrue(both.contains("first-42"), both);

        List<ProcessHandle> sleeping = terminals.running("sleep 1021");
        assertFalse(sleeping.isEmpty(), "the command runs under the client's terminal");
        model.enqueue(Script.reply().toolCall("t3", "shell_kill", "{\"id\":\"bg1\"}").finish("tool_calls"), Script.textReply("ended"));
        prompt("end it");
        assertTrue(shown("t3").contains("bg1 was ended by shell_kill"), shown("t3"));
        await("the command ended: " + sleeping, () -> sleeping.stream().noneMatch(LocalCommandRunner::isRunning));
        await("the terminal was released: " + terminals.calls, () -> terminals.calls.contains("release term-1"));
        await("the terminal's own process ended", () -> !term.process.isAlive());
    }

    @Test
    void nothingTheTerminalStartedOutlivesTheAgentKilledWithSigkill() throws Exception {
        assumeTrue(ClientTerminalBackground.available(), "setsid, env and mkfifo are here");
        assumeTrue(Sandboxes.fromEnvironment(System.getenv()).available(), "a sandbox works here");
        model.enqueue(Script.reply()
                .toolCall("t1", "run_shell_command", background("echo in-up; (exec sleep 1022) & exec sleep 1023", true))
                .toolCall("t2", "run_shell_command", background("echo out-up; (exec sleep 1024) & exec sleep 1025", false))
                .finish("tool_calls"), Script.textReply("started"));
        prompt("start them");
        assertEquals(2, terminals.creates.size(), "both went to the client's terminals: " + terminals.calls);
        for (String n : List.of("1022", "1023", "1024", "1025")) { // the sleeps themselves (not only the shells naming them)
            await("sleep " + n + " runs under a client's terminal", () -> terminals.running("sleep " + n).stream()
                    .anyMatch(h -> h.info().command().orElse("").endsWith("sleep")));
        }
        List<ProcessHandle> running = new ArrayList<>(terminals.running("sleep 102"));
        terminals.all.forEach(t -> t.process.descendants().forEach(running::add)); // the wrappers, bwrap, the shells
        agent.process().destroyForcibly(); // SIGKILL: nothing of the agent runs to clean up
        agent.process().waitFor();
        await("every process the terminals started ended after the agent was killed: " + running,
                () -> running.stream().noneMatch(LocalCommandRunner::isRunning));
        await("the terminals' own processes ended", () -> terminals.all.stream().noneMatch(t -> t.process.isAlive()));
    }

    @Test
    void aTerminalThatDoesNotRunTheCommandFailsTheStartWithWhatItPrinted() throws Exception {
        assumeTrue(ClientTerminalBackground.available(), "setsid, env and mkfifo are here");
        terminals.instead = List.of("/bin/sh", "-c", "echo this terminal runs nothing; exit 127");
        model.enqueue(Script.reply().toolCall("t1", "run_shell_command", background("exec sleep 1027", false))
                .finish("tool_calls"), Script.textReply("could not"));
        prompt("start it");
        String told = toldModel();
        assertTrue(told.contains("the client's terminal did not start the command: this terminal runs nothing"), told);
        assertTrue(terminals.calls.contains("release term-1"), "its terminal is released: " + terminals.calls);
        prompt("/ps");
        assertFalse(agent.agentText(session).contains("bg1"), "nothing is listed as running: " + agent.agentText(session));
    }

    @Test
    void closingTheSessionEndsTheCommandAndReleasesItsTerminal() throws Exception {
        assumeTrue(ClientTerminalBackground.available(), "setsid, env and mkfifo are here");
        model.enqueue(Script.reply().toolCall("t1", "run_shell_command", background("echo up; exec sleep 1026", false))
                .finish("tool_calls"), Script.textReply("started"));
        prompt("start it");
        List<ProcessHandle> sleeping = terminals.running("sleep 1026");
        assertFalse(sleeping.isEmpty(), "the command runs under the client's terminal: " + terminals.calls);
        assertTrue(agent.call("session/close", Json.object().put("sessionId", session)).has("result"));
        await("the command ended with its session: " + sleeping, () -> sleeping.stream().noneMatch(LocalCommandRunner::isRunning));
        await("its terminal was released: " + terminals.calls, () -> terminals.calls.contains("release term-1"));
        assertTrue(agent.process().isAlive(), "the agent itself runs on");
    }

    @Test
    void theSandboxStillAppliesAndNoCredentialReachesTheCommand() throws Exception {
        assumeTrue(ClientTerminalBackground.available(), "setsid, env and mkfifo are here");
        assumeTrue(Sandboxes.fromEnvironment(System.getenv()).available(), "a sandbox works here");
        Path outside = Files.createDirectories(dir.resolve("outside"));
        String command = "echo inside > in.txt; echo outside > " + outside.resolve("out.txt")
                + "; echo wrote-outside=$?; env | sort > env.txt; echo listed-env";
        model.enqueue(Script.reply().toolCall("t1", "run_shell_command", background(command, true)).finish("tool_calls"),
                Script.textReply("started"));
        prompt("start it");
        assertEquals(1, terminals.creates.size(), "the command went to the client's terminal: " + terminals.calls);
        await("the command wrote its environment", () -> terminals.all.get(0).output.toString().contains("listed-env"));

        assertEquals("inside\n", Files.readString(ws.resolve("in.txt")), "workspace-write: the workspace is writable");
        assertFalse(Files.exists(outside.resolve("out.txt")), "nothing is written outside the workspace");
        assertFalse(terminals.all.get(0).output.toString().contains("wrote-outside=0"), terminals.all.get(0).output.toString());
        String env = Files.readString(ws.resolve("env.txt"));
        assertFalse(env.contains(FakeModelServer.API_KEY), "the agent's model key: " + env);
        assertFalse(env.contains(CLIENT_SECRET), "the editor's credential: " + env);
        assertFalse(env.contains("EDITOR_ONLY_VARIABLE"), "nothing of the editor's environment: " + env);
        assertTrue(env.contains("GIT_TERMINAL_PROMPT=0"), "the agent's child environment: " + env);
        assertFalse(terminals.creates.get(0).toString().contains(FakeModelServer.API_KEY), "nor the request: " + terminals.creates.get(0));
    }
}
