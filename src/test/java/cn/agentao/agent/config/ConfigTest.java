package cn.agentao.agent.config;

import cn.agentao.agent.connect.a2a.A2aAgentConfig;
import cn.agentao.agent.connect.smcp.SmcpConfig;
import cn.agentao.agent.model.ModelCatalog;
import cn.agentao.agent.model.UserConfigFile;
import cn.agentao.agent.tools.web.WebSearchConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The layers of the configuration (docs/configuration.md): read once, a later layer winning, bad files named. */
class ConfigTest {
    @TempDir Path dir;

    private Map<String, String> env(String... more) {
        Map<String, String> env = new java.util.HashMap<>(Map.of("HOME", dir.resolve("home").toString(),
                "XDG_CONFIG_HOME", dir.resolve("xdg").toString()));
        for (int i = 0; i < more.length; i += 2) env.put(more[i], more[i + 1]);
        return env;
    }

    private Path userConfig(String json) throws Exception {
        Path file = Files.createDirectories(dir.resolve("xdg/agent")).resolve("config.json");
        Files.writeString(file, json);
        return file;
    }

    @Test
    void theCommandLineWinsOverTheEnvironmentWhichWinsOverTheDefaults() {
        AgentConfig defaults = AgentConfig.load(env());
        assertEquals(dir.resolve("xdg/agent"), defaults.configDir(), "XDG_CONFIG_HOME places the user's files");
        assertEquals(AgentConfig.DEFAULT_MAX_MODEL_CALLS, defaults.limits().maxModelCalls());
        assertFalse(defaults.network().allowPrivateNetwork());
        assertFalse(defaults.store().addressed());
        assertEquals(dir.resolve("home/.local/share/agent/sessions"), defaults.store().directory());

        AgentConfig fromEnv = AgentConfig.load(env("AGENT_MAX_MODEL_CALLS", "7", "AGENT_ALLOW_PRIVATE_NETWORK", "true",
                "AGENT_STORE", "postgres://env@db/agent", "AGENT_STORE_PASSWORD_ENV", "DB_PASS", "DB_PASS", "pw",
                "AGENT_SESSIONS_DIR", "/srv/sessions", "AGENT_SANDBOX", "none"));
        assertEquals(7, fromEnv.limits().maxModelCalls());
        assertTrue(fromEnv.network().allowPrivateNetwork());
        assertEquals("postgres://env@db/agent", fromEnv.store().address());
        assertEquals(Map.of("DB_PASS", "pw"), fromEnv.store().passwordVariables(), "only the password's variables are kept");
        assertEquals(Path.of("/srv/sessions"), fromEnv.store().directory());
        assertEquals("none", fromEnv.sandbox().setting());

        AgentConfig cli = AgentConfig.load(env("AGENT_STORE", "postgres://env@db/agent", "AGENT_STORE_PASSWORD_ENV", "DB_PASS"),
                new AgentConfig.CommandLine(null, "postgres://cli@db/agent", "CLI_PASS"));
        assertEquals("postgres://cli@db/agent", cli.store().address(), "--store wins over AGENT_STORE");
        assertEquals("CLI_PASS", cli.store().passwordEnv(), "--store-password-env wins over AGENT_STORE_PASSWORD_ENV");
        AgentConfig files = AgentConfig.load(env("AGENT_STORE", "postgres://env@db/agent"),
                new AgentConfig.CommandLine(dir.resolve("s"), null, null));
        assertFalse(files.store().addressed(), "an explicit --sessions-dir keeps the file store");
        assertEquals(dir.resolve("s"), files.store().directory());
        assertFalse(cli.toString().contains("postgres://"), "the address may hold a password: never shown");

        assertEquals(1, AgentConfig.load(env("AGENT_MAX_MODEL_CALLS", "0")).limits().maxModelCalls());
        assertEquals(AgentConfig.DEFAULT_MAX_MODEL_CALLS, AgentConfig.load(env("AGENT_MAX_MODEL_CALLS", "many")).limits().maxModelCalls());
    }

    @Test
    void theNetworkSectionTakesTheFirstProxyVariableSetAndNeverShowsItsCredentials() {
        AgentConfig config = AgentConfig.load(env("https_proxy", " ", "HTTPS_PROXY", "http://alice:hunter22@proxy:3128",
                "ALL_PROXY", "http://all:3128", "no_proxy", "direct.example", "NO_PROXY", "other.example",
                "SSL_CERT_FILE", "/etc/corp.pem"));
        AgentConfig.Proxies proxies = config.network().proxies();
        assertEquals("HTTPS_PROXY", proxies.https().name(), "a blank lower-case spelling does not count");
        assertEquals("ALL_PROXY", proxies.http().name(), "ALL_PROXY when HTTP_PROXY is unset");
        assertEquals("direct.example", proxies.noProxy().value(), "the lower-case spelling first, as curl reads them");
        assertEquals("/etc/corp.pem", config.network().certificates().file());
        assertNull(config.network().certificates().dirs());
        assertFalse(config.toString().contains("hunter22"), "a proxy's credentials are never shown: " + config);

        AgentConfig.Terminal terminal = AgentConfig.Terminal.from(env("TERM", "xterm", "NO_COLOR", "", "XDG_STATE_HOME", "state"));
        assertFalse(terminal.noColor(), "an empty NO_COLOR does not count");
        assertEquals(dir.resolve("home/.local/state/agent/history"), terminal.historyFile(), "a relative XDG_STATE_HOME does not count");
    }

    @Test
    void theUsersFileIsReadOnceAndEverySectionComesFromThatOneReading() throws Exception {
        Path file = userConfig("""
                {"webSearch": {"backend": "searxng", "baseUrl": "https://search.example.org"},
                 "smcp": {"url": "http://office.example:9000", "office": "o1"},
                 "a2aAgents": {"helper": {"url": "https://helper.example"}},
                 "sandbox": {"readablePaths": ["~/data"]}}
                """);
        AgentConfig config = AgentConfig.load(env());
        Files.writeString(file, "{}"); // what a part sees is what was read at start, not the file of the moment
        assertNotNull(WebSearchConfig.load(config).config());
        assertEquals("o1", SmcpConfig.read(config.userJson(), config.environment()).config().orElseThrow().office());
        assertEquals("helper", A2aAgentConfig.read(config.userJson(), new ArrayList<>()).get(0).name());
        assertEquals(List.of(dir.resolve("home/data")), config.sandbox().readable(), "~ is the HOME of the environment");
        assertNull(WebSearchConfig.load(AgentConfig.load(env())).config(), "the next start reads the file again");
    }

    @Test
    void theModelsEntriesAreReadAgainWhenTheFileChangesAndAProjectKeepsItsReadingUntilAReload() throws Exception {
        Path file = userConfig("{\"providers\": {\"openai\": {\"apiKey\": \"sk-file-key\", \"models\": [\"m\"]}}, \"default\": \"openai/m\"}");
        Path first = Files.createDirectories(dir.resolve("first")), second = Files.createDirectories(dir.resolve("second"));
        try (cn.agentao.agent.core.SessionService sessions = cn.agentao.agent.cli.CoreFactory.create(AgentConfig.load(env()))) {
            assertTrue(sessions.configured(first));
            Files.writeString(file, "{}"); // edited while the agent runs (an editor keeps it running for days)
            assertFalse(sessions.configured(second), "the next project that looks reads the edited file");
            assertTrue(sessions.configured(first), "a project already read keeps its reading");
            sessions.reloadConfiguration(); // after agent login/logout or the editor's authenticate
            assertFalse(sessions.configured(first), "a reload reads the file again for every project");
        }
    }

    @Test
    void aFileThatIsNotJsonIsNamedOnceAndTurnsNothingElseIntoAnError() throws Exception {
        Path file = userConfig("{\"providers\": {");
        AgentConfig config = AgentConfig.load(env());
        assertEquals(file + " is not valid JSON; it was ignored.", config.userJson().problem().orElseThrow());
        assertEquals(List.of(file + " is not valid JSON; it was ignored."), UserConfigFile.of(config.userJson()).problems(),
                "the model configuration tells the user (once per session)");
        assertTrue(SmcpConfig.read(config.userJson(), config.environment()).problems().isEmpty(), "not repeated by each part");
        assertTrue(config.sandbox().problems().isEmpty());
        assertNull(WebSearchConfig.load(config).problem());

        userConfig("[1, 2]");
        assertEquals(file + " must contain a JSON object; it was ignored.", AgentConfig.load(env()).userJson().problem().orElseThrow());
    }

    @Test
    void aBadEntryNamesTheFileAndTheKeyAndTheGoodOnesAreKept() throws Exception {
        Path file = userConfig("{\"sandbox\": {\"readablePaths\": [\"relative/dir\", \"/srv/data\"], \"writablePaths\": \"/tmp\"},"
                + " \"a2aAgents\": {\"ok\": {\"url\": \"https://a.example\"}, \"bad\": {\"url\": \"ftp://b\"}}}");
        AgentConfig config = AgentConfig.load(env());
        assertEquals(List.of(Path.of("/srv/data")), config.sandbox().readable(), "the good path is kept");
        assertEquals(List.of(file + ": \"sandbox.readablePaths\" entry 'relative/dir' is not an absolute path or ~/…, nor may it be /; it was ignored.",
                file + ": \"sandbox.writablePaths\" must be an array of paths; it was ignored."), config.sandbox().problems());
        List<String> problems = new ArrayList<>();
        assertEquals(List.of("ok"), A2aAgentConfig.read(config.userJson(), problems).stream().map(A2aAgentConfig::name).toList());
        assertEquals(List.of(file + ": a2aAgents.bad.url must be an http(s) URL"), problems);
    }

    @Test
    void aProjectsOwnFileCountsOnlyOnceTheUserTrustsTheProject() throws Exception {
        Path project = Files.createDirectories(dir.resolve("project"));
        Files.writeString(project.resolve(".env"), "OPENAI_API_KEY=sk-project-key\n");
        Map<String, String> env = env();
        ModelCatalog untrusted = ModelCatalog.load(env, ConfigLocations.standard(project, env, false));
        assertFalse(untrusted.configured(), "an untrusted project's .env is not a layer");
        ModelCatalog trusted = ModelCatalog.load(env, ConfigLocations.standard(project, env, true));
        assertTrue(trusted.configured(), "a trusted project's .env is");
        ModelCatalog overridden = ModelCatalog.load(env("OPENAI_API_KEY", "sk-env-key"), ConfigLocations.standard(project, env, true));
        assertEquals("sk-env-key", overridden.resolve("openai").apiKey(), "the environment wins over the project's .env");
    }
}
