package cn.agentao.agent.store.postgres;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.PostgresServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Operating the agent on PostgreSQL as a user does: {@code --store} and {@code --store-password-env} on the command
 * line (winning over {@code AGENT_STORE}); every bad store address (malformed, unknown scheme, a password in it,
 * no server, wrong or missing password, no such database) told in one line by every door (the command line exits
 * 1, an editor gets a JSON-RPC error, a server does not start); the store's password never reaching a command the
 * agent runs, the model or the log. Against a real server ({@link PostgresServer}).
 */
class PostgresStoreOptionsIT {
    static final String PASSWORD = "pw-" + Long.toHexString(System.nanoTime()) + "-right";
    static final String WRONG = "pw-" + Long.toHexString(System.nanoTime()) + "-wrong";
    @TempDir
    Path dir;
    FakeModelServer model;
    final List<AgentProcess> agents = new ArrayList<>();

    @BeforeEach
    void start() {
        model = FakeModelServer.start();
    }

    @AfterEach
    void stop() {
        for (AgentProcess a : agents) {
            assertEquals(List.of(), a.violations(), "nothing but protocol on stdout");
            a.close();
        }
        model.close();
    }

    record Run(int exit, String out, String err) {}

    Run run(Map<String, String> extraEnv, String... args) throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.putAll(extraEnv);
        ProcessBuilder pb = AgentProcess.command(env, args).directory(Files.createDirectories(dir.resolve("ws")).toFile());
        Path out = Files.createTempFile(dir, "out", ".txt"), err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", args) + " did not finish: " + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A bad store address, the environment it is tried with, and what the one line must say. */
    record Bad(String store, Map<String, String> env, String says) {}

    List<Bad> badStores() throws Exception {
        PostgresServer server = PostgresServer.shared();
        String withPassword = "postgres://" + server.passwordUser(PASSWORD) + "@127.0.0.1:" + server.port() + "/postgres";
        return List.of(
                new Bad("postgres://no-database-here", Map.of(), "use postgres://USER@HOST:PORT/DB"),
                new Bad("mysql://agent@127.0.0.1:3306/agent", Map.of(), "is not one this agent knows"),
                new Bad("postgres://agent:" + WRONG + "@127.0.0.1:" + server.port() + "/postgres", Map.of(), "must not carry a password"),
                new Bad("postgres://agent@127.0.0.1:" + closedPort() + "/agent", Map.of(), "no PostgreSQL server answers"),
                new Bad(server.url("no_such_database"), Map.of(), "does not exist"),
                new Bad(withPassword, Map.of("PGPASSWORD", WRONG), "password authentication failed"),
                new Bad(withPassword, Map.of(), "no password was provided"));
    }

    static void assertOneLine(Run r, String says, String what) {
        assertEquals(1, r.exit(), what + ": " + r.err());
        List<String> lines = r.err().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), what + ": one line, no stack trace:\n" + r.err());
        assertTrue(lines.getFirst().contains(says), what + ": " + lines.getFirst());
        assertFalse(r.err().contains(WRONG) || r.out().contains(WRONG), "a password is never repeated");
    }

    @Test
    void everyCommandSaysWhatIsWrongWithTheStoreInOneLine() throws Exception {
        for (Bad bad : badStores()) {
            Run list = run(bad.env(), "sessions", "list", "--store", bad.store());
            assertOneLine(list, bad.says(), "sessions list --store " + bad.store());
            assertTrue(list.err().startsWith("agent sessions list: "), list.err());
            assertEquals("", list.out());
        }
        // the other doors, with two of the cases: the option and the environment variable
        String noServer = "postgres://agent@127.0.0.1:" + closedPort() + "/agent";
        assertOneLine(run(Map.of(), "-p", "hello", "--store", noServer), "no PostgreSQL server answers", "-p");
        assertOneLine(run(Map.of("AGENT_STORE", noServer), "-p", "hello"), "no PostgreSQL server answers", "-p, AGENT_STORE");
        Run serve = run(Map.of(), "a2a", "serve", "--port", "0", "--store", PostgresServer.shared().url("no_such_database"));
        assertOneLine(serve, "does not exist", "a2a serve");
        assertFalse(serve.err().contains("listening"), "the server did not start: " + serve.err());
        assertOneLine(run(Map.of("AGENT_STORE", "mysql://x@y/z"), "agora", "--url", "ws://127.0.0.1:" + closedPort() + "/agora",
                "--agent-id", "a", "--space", "s"), "is not one this agent knows", "agora");
        assertEquals(0, model.requests().size(), "no turn was run without its store");
    }

    @Test
    void anEditorGetsAJsonRpcErrorForEverySessionCall() throws Exception {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_STORE", "postgres://agent@127.0.0.1:" + closedPort() + "/agent");
        AgentProcess a = AgentProcess.start(env, "--acp");
        agents.add(a);
        assertTrue(a.call("initialize", Json.object().put("protocolVersion", 1)).has("result"), "initialize is answered");
        ObjectNode setup = Json.object().put("cwd", Files.createDirectories(dir.resolve("ws")).toString());
        setup.putArray("mcpServers");
        for (var call : Map.of("session/new", setup, "session/list", Json.object(),
                "session/load", setup.deepCopy().put("sessionId", "a-session")).entrySet()) {
            JsonNode r = a.call(call.getKey(), call.getValue());
            assertTrue(r.has("error"), call.getKey() + ": " + r);
            String message = r.path("error").path("message").asText();
            assertTrue(message.contains("no PostgreSQL server answers at 127.0.0.1"), call.getKey() + ": " + message);
            assertFalse(message.contains("\n"), message);
        }
    }

    @Test
    void theOptionsWinAndThePasswordNeverReachesACommandTheModelOrTheLog() throws Exception {
        PostgresServer server = PostgresServer.shared();
        String user = server.passwordUser(PASSWORD);
        PostgresStoreConfig fresh = server.freshDatabase();
        String store = "postgres://" + user + "@127.0.0.1:" + server.port() + "/" + fresh.database();
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_STORE", "mysql://ignored@elsewhere/x"); // the option wins
        env.put("AGENT_SANDBOX", "none"); // the command may read its parent's environ
        env.put("STORE_PW_HOLDER", PASSWORD); // an ordinary name: only --store-password-env makes it a secret
        env.put("AGENT_SESSIONS_DIR", dir.resolve("files-unused").toString());
        AgentProcess a = AgentProcess.start(env, "--acp", "--store", store, "--store-password-env", "STORE_PW_HOLDER",
                "--log-level", "debug");
        agents.add(a);
        assertTrue(a.call("initialize", Json.object().put("protocolVersion", 1)).has("result"));
        ObjectNode setup = Json.object().put("cwd", Files.createDirectories(dir.resolve("ws")).toString());
        setup.putArray("mcpServers");
        JsonNode created = a.call("session/new", setup);
        String id = created.path("result").path("sessionId").asText();
        assertFalse(id.isEmpty(), created.toString());
        assertTrue(a.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "full-access")).has("result"));
        String command = "printenv; tr '\\0' '\\n' < /proc/$PPID/environ; echo; echo \"holder=[${STORE_PW_HOLDER:-unset}]\"";
        model.enqueue(Script.reply().toolCall("call_env", "run_shell_command", Json.object().put("command", command).toString(), 2),
                Script.textReply("done"));
        ObjectNode prompt = Json.object().put("sessionId", id);
        prompt.putArray("prompt").addObject().put("type", "text").put("text", "show the environment");
        JsonNode r = a.call("session/prompt", prompt, Duration.ofSeconds(90));
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());

        String toolResult = null;
        StringBuilder sent = new StringBuilder();
        for (RecordedRequest req : model.requests()) {
            sent.append(req.rawBody());
            for (JsonNode m : req.messages()) if ("call_env".equals(m.path("tool_call_id").asText())) toolResult = m.path("content").asText();
        }
        assertNotNull(toolResult, "the command ran and its output went to the model");
        assertTrue(toolResult.contains("holder=[unset]"), toolResult);
        assertTrue(toolResult.contains("PATH="), "the command saw its environment: " + toolResult);
        assertFalse(sent.toString().contains(PASSWORD), "the store's password reached the model");
        assertFalse(a.stderr().contains(PASSWORD), "the store's password reached the log");
        assertFalse(Files.exists(dir.resolve("files-unused")), "sessions went to PostgreSQL, not files");

        Run list = run(Map.of("STORE_PW_HOLDER", PASSWORD), "sessions", "list", "--store", store, "--store-password-env", "STORE_PW_HOLDER");
        assertEquals(0, list.exit(), list.err());
        assertTrue(list.out().contains(id), "the session is in the database the option named: " + list.out());
    }
}
