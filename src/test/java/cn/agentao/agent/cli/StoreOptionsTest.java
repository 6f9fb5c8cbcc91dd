package cn.agentao.agent.cli;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.config.StoreSettings;
import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.childenv.Credentials;
import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.store.SessionStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code --store} and {@code --store-password-env}: read the same way by Picocli (every command that reads sessions)
 * and by the fast parsers, winning over the environment; a bad address is a store that says what is wrong at each use.
 */
class StoreOptionsTest {
    static final String ADDRESS = "postgres://agent@db.example:5432/agent";

    @Test
    void theOptionsWinOverTheEnvironment() {
        StoreOptions o = new StoreOptions();
        assertTrue(o.accept("--store", ADDRESS));
        assertTrue(o.accept("--store-password-env", "DB_PASS"));
        assertFalse(o.accept("--sessions-dir", "x"));
        StoreSettings store = StoreSettings.from(Map.of("AGENT_STORE", "postgres://old@elsewhere/db", "HOME", "/h"), o.commandLine(null));
        assertEquals(ADDRESS, store.address());
        assertEquals("DB_PASS", store.passwordEnv());
        assertEquals(Path.of("/h/.local/share/agent/sessions"), store.defaultDirectory());
        Map<String, String> untouched = Map.of("AGENT_STORE", "postgres://old@elsewhere/db");
        assertEquals("postgres://old@elsewhere/db", StoreSettings.from(untouched, new StoreOptions().commandLine(null)).address(),
                "without the options the environment decides");
    }

    @Test
    void everyDoorReadsThem() {
        AcpLaunch.Options acp = AcpLaunch.parse(new String[]{"--acp", "--store", ADDRESS, "--store-password-env=DB_PASS"});
        assertNotNull(acp, "an editor's launch line with --store stays on the fast path");
        assertEquals(ADDRESS, acp.store().commandLine(null).store());
        assertEquals("DB_PASS", acp.store().commandLine(null).storePasswordEnv());
        TerminalLaunch.Options p = TerminalLaunch.parse(new String[]{"-p", "hi", "--store=" + ADDRESS});
        assertEquals(ADDRESS, p.store().commandLine(null).store());
        assertNull(AcpLaunch.parse(new String[]{"--acp", "--store"}), "a missing value is Picocli's usage error");

        for (List<String> line : List.of(List.of("--store", ADDRESS), List.of("sessions", "list", "--store", ADDRESS),
                List.of("a2a", "serve", "--port", "0", "--store", ADDRESS), List.of("agora", "--url", "ws://h/x",
                        "--agent-id", "a", "--space", "s", "--store", ADDRESS))) {
            CommandLine.ParseResult r = new CommandLine(new AgentCommand()).parseArgs(line.toArray(String[]::new));
            while (r.hasSubcommand()) r = r.subcommand();
            assertEquals(ADDRESS, r.matchedOptionValue("--store", null), String.join(" ", line));
        }
    }

    @Test
    void aBadAddressIsAStoreThatSaysWhatIsWrong(@TempDir Path dir) {
        Map<String, String> cases = Map.of(
                "mysql://agent@db/agent", "is not one this agent knows",
                "sessions", "is not one this agent knows",
                "postgres://agent:hunter2hunter2@db/agent", "must not carry a password",
                "postgres://db.example/agent", "use postgres://USER@HOST:PORT/DB",
                "postgres://agent@db.example/", "use postgres://USER@HOST:PORT/DB");
        cases.forEach((address, says) -> {
            SessionRepository store = SessionRepositories.open(StoreSettings.from(Map.of("AGENT_STORE", address), new AgentConfig.CommandLine(null, null, null)));
            SessionStoreException e = assertThrows(SessionStoreException.class, () -> store.list(null, null, 10), address);
            assertTrue(e.getMessage().contains(says), address + ": " + e.getMessage());
            assertFalse(e.getMessage().contains("hunter2"), "the password is never repeated: " + e.getMessage());
            assertFalse(e.getMessage().contains("\n"), "one line");
            assertThrows(SessionStoreException.class, () -> store.lease("x"));
        });
        SessionRepository unset = SessionRepositories.open(StoreSettings.from(Map.of("AGENT_STORE", ADDRESS, "AGENT_STORE_PASSWORD_ENV", "NO_SUCH_VAR_X"), new AgentConfig.CommandLine(null, null, null)));
        assertTrue(assertThrows(SessionStoreException.class, () -> unset.exists("x")).getMessage().contains("NO_SUCH_VAR_X"));
        assertInstanceOf(SessionStore.class, SessionRepositories.open(StoreSettings.from(Map.of("AGENT_STORE", ADDRESS), new AgentConfig.CommandLine(dir, null, null))),
                "an explicit --sessions-dir keeps the file store");
    }

    @Test
    void theStorePasswordVariableIsKeptFromChildrenWhateverItsName() {
        String name = "ORDINARY_NAME_" + ProcessHandle.current().pid();
        Map<String, String> env = Map.of(name, "s3cret-db-value", "COPY", "s3cret-db-value", "HOME", "/h");
        assertEquals("s3cret-db-value", ChildEnvironment.of(env, Credentials.of(env), List.of()).variables().get(name),
                "an ordinary name is inherited ...");
        SessionRepositories.open(StoreSettings.from(Map.of("AGENT_STORE", ADDRESS, "AGENT_STORE_PASSWORD_ENV", name, name, "s3cret-db-value"), new AgentConfig.CommandLine(null, null, null)));
        Map<String, String> child = ChildEnvironment.of(env, Credentials.of(env), List.of()).variables();
        assertFalse(child.containsKey(name), "... until the store reads its password from it");
        assertFalse(child.containsValue("s3cret-db-value"), "nor under another name");
        assertEquals("/h", child.get("HOME"));
    }
}
