package cn.agentao.agent.config;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Where sessions are kept: in files ({@code --sessions-dir}, else {@value #DIR_ENV}, else
 * {@code $XDG_DATA_HOME/agent/sessions}, else {@code ~/.local/share/agent/sessions}), or in PostgreSQL when
 * {@code --store} or {@value #STORE_ENV} gives an address (an explicit {@code --sessions-dir} keeps the files). The
 * password is read from {@code PGPASSWORD} or the variable {@code --store-password-env} or
 * {@value #PASSWORD_ENV_ENV} names; only those variables are kept here, and never shown.
 *
 * @param address           the store address ({@code postgres://…}), or null for the file store
 * @param passwordEnv       the variable named to hold the password, or null for {@code PGPASSWORD}
 * @param passwordVariables the values of {@code PGPASSWORD} and of {@code passwordEnv}, where set
 * @param sessionsDir       an explicit sessions directory (the command line), or null
 * @param defaultDirectory  the file store's directory when none is given
 */
public record StoreSettings(String address, String passwordEnv, Map<String, String> passwordVariables, Path sessionsDir,
                            Path defaultDirectory) {
    public static final String STORE_ENV = "AGENT_STORE";
    public static final String PASSWORD_ENV_ENV = "AGENT_STORE_PASSWORD_ENV";
    /** Environment variable that overrides {@link #defaultDirectory}. */
    public static final String DIR_ENV = "AGENT_SESSIONS_DIR";

    public StoreSettings {
        passwordVariables = Map.copyOf(passwordVariables);
    }

    /** The environment's settings, the command line's winning. */
    public static StoreSettings from(Map<String, String> env, AgentConfig.CommandLine commandLine) {
        String address = commandLine.store() != null ? commandLine.store() : env.get(STORE_ENV);
        String passwordEnv = commandLine.storePasswordEnv() != null ? commandLine.storePasswordEnv() : env.get(PASSWORD_ENV_ENV);
        Map<String, String> passwords = new HashMap<>();
        for (String name : new String[] {"PGPASSWORD", passwordEnv}) {
            if (name != null && env.get(name) != null) passwords.put(name, env.get(name));
        }
        return new StoreSettings(address, passwordEnv, passwords, commandLine.sessionsDir(), defaultDirectory(env));
    }

    /** Whether an address other than the file store's was given (and no explicit sessions directory). */
    public boolean addressed() {
        return sessionsDir == null && address != null && !address.isBlank();
    }

    /** The file store's directory: the explicit one, else the default. */
    public Path directory() {
        return sessionsDir != null ? sessionsDir : defaultDirectory;
    }

    /**
     * Where sessions live unless told otherwise: {@code $AGENT_SESSIONS_DIR} if set, else
     * {@code $XDG_DATA_HOME/agent/sessions} (if that is an absolute path), else {@code ~/.local/share/agent/sessions}.
     */
    public static Path defaultDirectory(Map<String, String> env) {
        String override = env.get(DIR_ENV);
        if (override != null && !override.isBlank()) return Path.of(override).toAbsolutePath();
        String dataHome = env.get("XDG_DATA_HOME");
        if (dataHome != null && !dataHome.isBlank() && Path.of(dataHome).isAbsolute()) {
            return Path.of(dataHome, "agent", "sessions");
        }
        return cn.agentao.agent.util.UserHome.from(env).resolve(".local/share/agent/sessions");
    }

    @Override
    public String toString() { // never a password (nor the address, which might hold one)
        return "StoreSettings[address=" + (address == null ? "none" : "set") + ", passwordEnv=" + passwordEnv + ", sessionsDir=" + sessionsDir
                + ", defaultDirectory=" + defaultDirectory + "]";
    }
}
