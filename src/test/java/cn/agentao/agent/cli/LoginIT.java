package cn.agentao.agent.cli;

import cn.agentao.agent.door.acp.AcpAgent;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code agent login} / {@code logout} as a user and an ACP client meet them: the terminal auth method in
 * {@code initialize}, a running agent that serves {@code session/new} after a login in another process, ACP
 * {@code logout}. The key typed in never shows in output, and the {@code .env} is the owner's only.
 */
class LoginIT {
    static final String KEY = "sk-login-typed-9f3e1d";

    @TempDir
    Path dir;
    FakeModelServer model;
    Map<String, String> env;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        env = Map.of("XDG_CONFIG_HOME", dir.resolve("config").toString(), "AGENT_SESSIONS_DIR", dir.resolve("store").toString());
    }

    @AfterEach
    void stop() {
        model.close();
    }

    Path dotEnv() {
        return dir.resolve("config/agent/.env");
    }

    /** Runs {@code agent login} with {@code answers} typed on a piped stdin; returns the finished process. */
    AgentProcess login(String answers) throws Exception {
        AgentProcess p = AgentProcess.start(env, "login");
        try (OutputStream in = p.process().getOutputStream()) {
            in.write(answers.getBytes(StandardCharsets.UTF_8));
        }
        p.awaitExit(Duration.ofSeconds(60));
        return p;
    }

    /** "Other OpenAI-compatible" named fake, the key, the fake server's URL, model m1. */
    String otherProviderAnswers(String key) {
        return "6\nfake\n" + key + "\n" + model.baseUrl() + "\nm1\n";
    }

    static ObjectNode newSession(Path cwd) {
        ObjectNode p = Json.object().put("cwd", cwd.toString());
        p.putArray("mcpServers");
        return p;
    }

    @Test
    void loginWhileTheAgentRunsThenSessionNewWorksAndLogoutUndoesIt() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        try (AgentProcess agent = AgentProcess.start(env, "--acp")) {
            ObjectNode init = Json.object().put("protocolVersion", 1);
            init.putObject("clientCapabilities").putObject("auth").put("terminal", true);
            JsonNode result = agent.call("initialize", init).path("result");
            JsonNode terminal = null;
            for (JsonNode m : result.path("authMethods")) if ("terminal".equals(m.path("type").asText())) terminal = m;
            assertNotNull(terminal, "terminal auth method advertised to a client that can run it: " + result);
            assertEquals(AcpAgent.AUTH_LOGIN_ID, terminal.path("id").asText());
            assertEquals("[\"login\"]", terminal.path("args").toString());
            assertTrue(result.path("agentCapabilities").path("auth").path("logout").isObject(), "logout advertised");

            assertEquals(-32000, agent.call("session/new", newSession(ws)).path("error").path("code").asInt(),
                    "no provider yet: auth required");

            model.acceptOnlyKey(KEY);
            AgentProcess login = login(otherProviderAnswers(KEY));
            String out = String.join("\n", login.stdoutLines());
            assertEquals(0, login.process().exitValue(), out + login.stderr());
            assertFalse(out.contains(KEY) || login.stderr().contains(KEY), "the key is never printed: " + out);
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dotEnv())));
            String saved = Files.readString(dotEnv());
            assertTrue(saved.contains("LLM_PROVIDER='FAKE'") && saved.contains("FAKE_API_KEY='" + KEY + "'")
                    && saved.contains("FAKE_MODEL='m1'"), saved);

            JsonNode created = agent.call("session/new", newSession(ws));
            String sessionId = created.path("result").path("sessionId").asText();
            assertFalse(sessionId.isEmpty(), "session/new works after login, same agent process: " + created);
            model.enqueue(Script.textReply("hello after login"));
            ObjectNode prompt = Json.object().put("sessionId", sessionId);
            prompt.putArray("prompt").addObject().put("type", "text").put("text", "hi");
            assertEquals("end_turn", agent.call("session/prompt", prompt, Duration.ofSeconds(60)).path("result").path("stopReason").asText());
            RecordedRequest chat = model.lastRequest();
            assertEquals("Bearer " + KEY, chat.header("authorization"), "the saved key goes to the provider");
            assertEquals("m1", chat.body().path("model").asText());

            assertTrue(agent.call("logout", Json.object()).has("result"));
            assertFalse(Files.readString(dotEnv()).contains(KEY), "logout removed the key");
            assertEquals(-32000, agent.call("session/new", newSession(ws)).path("error").path("code").asInt(),
                    "after logout a new session needs a provider again");
            assertFalse(agent.stderr().contains(KEY), "the key is not logged");
            assertFalse(agent.stdoutLines().stream().anyMatch(l -> l.contains(KEY)), "nor sent to the client");
        }
    }

    @Test
    void terminalMethodOnlyForClientsThatCanRunIt() throws Exception {
        try (AgentProcess agent = AgentProcess.start(env, "--acp")) {
            JsonNode result = agent.call("initialize", Json.object().put("protocolVersion", 1)).path("result");
            for (JsonNode m : result.path("authMethods")) assertNotEquals("terminal", m.path("type").asText(), result.toString());
            assertTrue(result.path("authMethods").size() >= 1, "the environment method is still there");
        }
    }

    @Test
    void registryManifestAuthIsTheAdvertisedTerminalMethod() throws Exception {
        Process script = new ProcessBuilder("bash", AgentProcess.home().resolve("scripts/acp-registry-manifest.sh").toString(), "9.9.9")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        JsonNode manifest = Json.mapper().readTree(script.getInputStream());
        assertEquals(0, script.waitFor());
        try (AgentProcess agent = AgentProcess.start(env, "--acp")) {
            ObjectNode init = Json.object().put("protocolVersion", 1);
            init.putObject("clientCapabilities").putObject("auth").put("terminal", true);
            JsonNode methods = agent.call("initialize", init).path("result").path("authMethods");
            assertEquals(1, manifest.path("auth").size(), manifest.toString());
            JsonNode listed = manifest.path("auth").get(0);
            boolean found = false;
            for (JsonNode m : methods) {
                if (m.path("id").asText().equals(listed.path("id").asText())) {
                    found = true;
                    assertEquals(listed.path("type"), m.path("type"));
                    assertEquals(listed.path("args"), m.path("args"));
                }
            }
            assertTrue(found, "the manifest's method " + listed + " is one initialize advertises: " + methods);
        }
    }

    @Test
    void aRefusedKeyIsNotSaved() throws Exception {
        model.acceptOnlyKey("sk-the-right-one");
        AgentProcess login = login(otherProviderAnswers(KEY));
        assertEquals(1, login.process().exitValue());
        assertTrue(login.stderr().contains("refused the key"), login.stderr());
        assertFalse(Files.exists(dotEnv()), "nothing written");
        assertFalse(String.join("\n", login.stdoutLines()).contains(KEY) || login.stderr().contains(KEY));
    }

    @Test
    void logoutKeepsTheFilesOtherLines() throws Exception {
        Files.createDirectories(dotEnv().getParent());
        Files.writeString(dotEnv(), "# mine\nLLM_TEMPERATURE=0.2\nOPENAI_API_KEY=sk-old\nOPENAI_MODEL=gpt-x\n");
        AgentProcess logout = AgentProcess.start(env, "logout");
        assertEquals(0, logout.awaitExit(Duration.ofSeconds(60)), logout.stderr());
        assertEquals("# mine\nLLM_TEMPERATURE=0.2\n", Files.readString(dotEnv()));
    }

    @Test
    void loginReplacesAnEarlierLoginAndKeepsOtherLines() throws Exception {
        Files.createDirectories(dotEnv().getParent());
        Files.writeString(dotEnv(), "LLM_TEMPERATURE=0.2\nFAKE_API_KEY=sk-older\n");
        assertEquals(0, login(otherProviderAnswers(KEY)).process().exitValue());
        List<String> lines = Files.readAllLines(dotEnv());
        assertEquals(List.of("LLM_TEMPERATURE=0.2", "FAKE_API_KEY='" + KEY + "'", "LLM_PROVIDER='FAKE'",
                "FAKE_BASE_URL='" + model.baseUrl() + "'", "FAKE_MODEL='m1'"), lines);
    }
}
