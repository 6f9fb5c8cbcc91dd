package cn.agentao.agent.childenv;

import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.model.ModelCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** The environment every child gets: what is inherited, what is dropped, what is set. */
class ChildEnvironmentTest {
    static final String KEY = "sk-provider-key-0123456789";

    @TempDir
    Path dir;

    private static Map<String, String> agentEnv() {
        Map<String, String> e = new HashMap<>();
        e.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        e.put("HOME", "/home/me");
        e.put("LANG", "C.UTF-8");
        e.put("TERM", "xterm");
        e.put("USER", "me");
        e.put("SHELL", "/bin/bash");
        e.put("TMPDIR", "/tmp");
        e.put("JAVA_HOME", "/opt/jdk");
        e.put("HTTPS_PROXY", "http://proxy.example:3128");
        e.put("TOKENIZERS_PARALLELISM", "false");
        e.put("SSH_AUTH_SOCK", "/run/user/1000/ssh-agent.sock");
        e.put("OPENAI_API_KEY", KEY);
        return e;
    }

    private ChildEnvironment of(Map<String, String> env, Credentials c) {
        return ChildEnvironment.of(env, c, List.of(dir));
    }

    @Test
    void ordinaryVariablesAreInherited() {
        Map<String, String> v = of(agentEnv(), Credentials.of(agentEnv())).variables();
        for (String name : List.of("PATH", "HOME", "LANG", "TERM", "USER", "SHELL", "TMPDIR", "JAVA_HOME", "HTTPS_PROXY",
                "TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK")) {
            assertEquals(agentEnv().get(name), v.get(name), name);
        }
    }

    @Test
    void credentialNamesAreDropped() {
        Map<String, String> env = agentEnv();
        List<String> secrets = List.of("GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN",
                "DB_PASSWORD", "PGPASSWORD", "ANTHROPIC_API_KEY", "STRIPE_KEY", "GOOGLE_APPLICATION_CREDENTIALS",
                "npm_config__authToken", "NPM_CONFIG__AUTH", "GITHUB_PAT", "MYSQL_PWD", "CLIENT_SECRET", "HF_TOKEN",
                "SECRET_KEY_BASE", "MY_APIKEY", "OPENAI_API_KEY_2");
        for (String s : secrets) env.put(s, "value-of-" + s);
        Map<String, String> v = of(env, Credentials.of(env)).variables();
        for (String s : secrets) assertFalse(v.containsKey(s), s);
        assertFalse(v.containsKey("OPENAI_API_KEY"));
        assertFalse(v.toString().contains("value-of-"), v.toString());
    }

    @Test
    void aServersDeclaredTokenVariableIsKeptFromChildrenWhateverItsNameAndEvenWhenPassEnvNamesIt() {
        String name = "CHILDENV_TEST_DOOR_WORD"; // an ordinary name, declared by a server's --token-env
        Map<String, String> env = agentEnv();
        env.put(name, "door-word-1234");
        env.put("CHILDENV_TEST_OTHER_WORD", "other-word-5678");
        assertEquals("door-word-1234", of(env, Credentials.of(env)).variables().get(name), "ordinary before it is declared");

        CredentialNames.declare(name);

        Credentials passing = Credentials.of(env, Set.of(), Set.of(), Set.of(name));
        for (Credentials c : List.of(Credentials.of(env), passing)) {
            ChildEnvironment children = of(env, c);
            assertFalse(children.variables().containsKey(name), c.toString());
            assertFalse(children.variables().containsValue("door-word-1234"), c.toString());
            assertEquals("", children.forClientTerminal().get(name), "a client's terminal gets it blanked");
            assertTrue(children.holdsSecret("echo door-word-1234"), "its value counts as a secret");
        }
        assertEquals("other-word-5678", of(env, Credentials.of(env)).variables().get("CHILDENV_TEST_OTHER_WORD"),
                "only the declared name");
    }

    @Test
    void aSecretUnderAnInnocentNameIsDroppedByItsValue() {
        Map<String, String> env = agentEnv();
        env.put("INNOCENT", KEY);
        env.put("HEADER", "Authorization: Bearer " + KEY);
        env.put("SHORT", "local");
        env.put("A_TOKEN", "local"); // too short to be matched inside other values
        Map<String, String> v = of(env, Credentials.of(env)).variables();
        assertFalse(v.containsKey("INNOCENT"));
        assertFalse(v.containsKey("HEADER"));
        assertEquals("local", v.get("SHORT"));
    }

    @Test
    void aPasswordInAUrlIsACredential() {
        Map<String, String> env = agentEnv();
        env.put("DATABASE_URL", "postgres://app:hunter2@db.example/app");
        env.put("PLAIN_URL", "https://example.com:8443/path@x");
        env.put("GIT_REMOTE", "ssh://git@example.com:22/repo");
        Map<String, String> v = of(env, Credentials.of(env)).variables();
        assertFalse(v.containsKey("DATABASE_URL"));
        assertEquals("https://example.com:8443/path@x", v.get("PLAIN_URL"));
    }

    @Test
    void providerKeyVariablesAndKeysFromElsewhereAreDropped() {
        Map<String, String> env = agentEnv();
        env.put("MY_LLM", "value-named-by-apiKeyEnv");
        env.put("COPY", "key-from-a-dotenv-file-123");
        Credentials c = Credentials.of(env, Set.of("MY_LLM"), List.of("key-from-a-dotenv-file-123"), List.of());
        Map<String, String> v = of(env, c).variables();
        assertFalse(v.containsKey("MY_LLM"));
        assertFalse(v.containsKey("COPY"));
    }

    @Test
    void passEnvPassesANamedCredentialAndItsValue() {
        Map<String, String> env = agentEnv();
        env.put("GITHUB_TOKEN", "ghp_passed_on_purpose");
        env.put("GH_COPY", "ghp_passed_on_purpose");
        env.put("AWS_SECRET_ACCESS_KEY", "still-secret-value");
        Credentials c = Credentials.of(env, Set.of(), List.of(), List.of("GITHUB_TOKEN"));
        Map<String, String> v = of(env, c).variables();
        assertEquals("ghp_passed_on_purpose", v.get("GITHUB_TOKEN"));
        assertFalse(v.containsKey("AWS_SECRET_ACCESS_KEY"));
        assertFalse(v.containsKey("OPENAI_API_KEY"));
    }

    @Test
    void unsafeVariablesAreDroppedAndGitIsHardened() {
        Map<String, String> env = agentEnv();
        for (String n : List.of("LD_PRELOAD", "BASH_ENV", "ENV", "JAVA_TOOL_OPTIONS", "NODE_OPTIONS", "GIT_DIR",
                "GIT_CONFIG_PARAMETERS", "GIT_SSH_COMMAND", "BASH_FUNC_ls%%", "EDITOR", "PAGER")) {
            env.put(n, "/tmp/evil");
        }
        env.put("GIT_CONFIG_COUNT", "1");
        env.put("GIT_CONFIG_KEY_0", "core.fsmonitor");
        env.put("GIT_CONFIG_VALUE_0", "touch /tmp/pwned");
        Map<String, String> v = of(env, Credentials.of(env)).variables();
        for (String n : List.of("LD_PRELOAD", "BASH_ENV", "ENV", "JAVA_TOOL_OPTIONS", "NODE_OPTIONS", "GIT_DIR",
                "GIT_CONFIG_PARAMETERS", "GIT_SSH_COMMAND", "BASH_FUNC_ls%%", "EDITOR")) {
            assertFalse(v.containsKey(n), n);
        }
        assertEquals("cat", v.get("PAGER"));
        assertEquals("cat", v.get("GIT_PAGER"));
        assertEquals("0", v.get("GIT_TERMINAL_PROMPT"));
        assertEquals("2", v.get("GIT_CONFIG_COUNT"));
        assertEquals("core.fsmonitor", v.get("GIT_CONFIG_KEY_0"));
        assertEquals("false", v.get("GIT_CONFIG_VALUE_0"));
        assertEquals("safe.bareRepository", v.get("GIT_CONFIG_KEY_1"));
        assertEquals("explicit", v.get("GIT_CONFIG_VALUE_1"));
        assertFalse(v.containsValue("touch /tmp/pwned"));
    }

    @Test
    void pathEntriesInsideTheWorkspaceOrRelativeAreRemoved() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path link = Files.createSymbolicLink(dir.getParent().resolve("link-" + dir.getFileName()), bin);
        try {
            Map<String, String> env = agentEnv();
            env.put("PATH", bin + ":/usr/bin:.::bin:" + link + ":" + dir + "/../" + dir.getFileName() + "/bin:/bin");
            env.put("LD_LIBRARY_PATH", dir.resolve("lib") + ":/opt/lib");
            Map<String, String> v = of(env, Credentials.of(env)).variables();
            assertEquals("/usr/bin:/bin", v.get("PATH"));
            assertEquals("/opt/lib", v.get("LD_LIBRARY_PATH"));
        } finally {
            Files.deleteIfExists(link);
        }
    }

    @Test
    void declaredEntriesGoOnTopAndAProjectsLoseTheirCredentials() {
        Map<String, String> env = agentEnv();
        ChildEnvironment c = of(env, Credentials.of(env));
        Map<String, String> user = c.variables(Map.of("API_TOKEN", "user-passes-this", "MODE", "x"));
        assertEquals("user-passes-this", user.get("API_TOKEN"));
        assertEquals("x", user.get("MODE"));
        Map<String, String> project = c.withoutCredentials(Map.of("LEAK", KEY, "API_TOKEN", "t0ken-value", "MODE", "x"));
        assertEquals(Map.of("MODE", "x"), project);
        assertTrue(c.holdsSecret("--key=" + KEY));
        assertFalse(c.holdsSecret("--verbose"));
    }

    @Test
    void aClientTerminalIsAskedToBlankCredentialsAndNeverGetsAValue() {
        Map<String, String> env = agentEnv();
        env.put("GITHUB_TOKEN", "ghp_abcdefghijklmnop");
        env.put("INNOCENT", KEY);
        Credentials c = Credentials.of(env, Set.of("MY_LLM"), List.of(), List.of());
        Map<String, String> t = of(env, c).forClientTerminal();
        assertEquals("", t.get("OPENAI_API_KEY"));
        assertEquals("", t.get("GITHUB_TOKEN"));
        assertEquals("", t.get("INNOCENT"));
        assertEquals("", t.get("MY_LLM"));
        assertEquals("cat", t.get("PAGER"));
        assertFalse(t.containsKey("PATH"));
        assertFalse(t.toString().contains(KEY));
        assertFalse(t.toString().contains("ghp_"));
    }

    @Test
    void aTrustedSessionsCredentialsComeFromTheCatalogTheDotEnvFilesAndTheUsersPassEnv() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path config = Files.createDirectories(dir.resolve("config/agent"));
        Files.writeString(ws.resolve(".env"), "DEEPSEEK_API_KEY=sk-from-project-dotenv-1\nSERVICE_SECRET=from-dotenv-secret\n");
        Files.writeString(config.resolve("config.json"), """
                {"providers": {"mine": {"kind": "openai", "apiKeyEnv": "MY_LLM", "baseUrl": "http://localhost:1/v1",
                                        "models": ["m"]},
                               "lit": {"kind": "openai", "apiKey": "literal-key-in-config", "baseUrl": "http://localhost:2/v1",
                                        "models": ["m"]}},
                 "passEnv": ["GITHUB_TOKEN"]}
                """);
        Map<String, String> env = agentEnv();
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("MY_LLM", "custom-named-key-value");
        env.put("GITHUB_TOKEN", "ghp_user_passes_this");
        env.put("COPY1", "sk-from-project-dotenv-1");
        env.put("COPY2", "from-dotenv-secret");
        env.put("COPY3", "literal-key-in-config");
        ConfigLocations loc = ConfigLocations.standard(ws, env, true); // a trusted project: its .env applies whole
        Credentials c = Credentials.load(env, loc, ModelCatalog.load(env, loc));
        Map<String, String> v = ChildEnvironment.of(env, c, List.of(ws)).variables();
        for (String n : List.of("MY_LLM", "COPY1", "COPY2", "COPY3", "OPENAI_API_KEY")) assertFalse(v.containsKey(n), n);
        assertEquals("ghp_user_passes_this", v.get("GITHUB_TOKEN"));
    }

    @Test
    void theTokensTheConnectorsNameInTheUserConfigAreKeptFromChildrenWhateverTheirNames(@TempDir Path dir) throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path config = Files.createDirectories(dir.resolve("config/agent"));
        Files.writeString(config.resolve("config.json"), """
                {"smcp": {"url": "http://localhost:1", "office": "o", "name": "a", "tokenEnv": "OFFICE_PASS_VAR"},
                 "agora": {"url": "ws://localhost:2/ws", "tokenEnv": "SPACES_VAR"},
                 "a2aAgents": {"helper": {"url": "http://localhost:3", "tokenEnv": "HELPER_VAR"}}}
                """);
        Map<String, String> env = agentEnv();
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("OFFICE_PASS_VAR", "office-token-value");
        env.put("SPACES_VAR", "agora-token-value");
        env.put("HELPER_VAR", "remote-agent-token-value");
        env.put("COPY_OF_IT", "remote-agent-token-value");
        env.put("ORDINARY_VAR", "kept");
        ConfigLocations loc = ConfigLocations.standard(ws, env, false);
        Credentials c = Credentials.load(env, loc, ModelCatalog.load(env, loc));
        Map<String, String> v = ChildEnvironment.of(env, c, List.of(ws)).variables();
        for (String n : List.of("OFFICE_PASS_VAR", "SPACES_VAR", "HELPER_VAR", "COPY_OF_IT")) assertFalse(v.containsKey(n), n);
        assertEquals("kept", v.get("ORDINARY_VAR"));
    }

    @Test
    void knownSecretsAreMaskedInText() {
        Map<String, String> env = agentEnv();
        env.put("GITHUB_TOKEN", "ghp_abcdefghijklmnop");
        Credentials c = Credentials.of(env);
        assertEquals("OPENAI_API_KEY=***\ntoken: ***\nlocal", c.mask("OPENAI_API_KEY=" + KEY + "\ntoken: ghp_abcdefghijklmnop\nlocal"));
        assertNull(c.mask(null));
    }

    @Test
    void credentialNamesAreRecognisedButOrdinaryOnesAreNot() {
        for (String n : List.of("OPENAI_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
                "SLACK_WEBHOOK_SECRET", "GPG_PASSPHRASE", "AZURE_CREDENTIALS", "NPM_TOKEN", "PRIVATE_KEY", "SSH_PRIVATE_KEY_PATH")) {
            assertTrue(CredentialNames.isCredential(n), n);
        }
        for (String n : List.of("PATH", "HOME", "PWD", "OLDPWD", "KEY", "TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK",
                "KEYTIMEOUT", "JAVA_HOME", "LANG", "HISTCONTROL", "AUTHOR")) {
            assertFalse(CredentialNames.isCredential(n), n);
        }
    }
}
