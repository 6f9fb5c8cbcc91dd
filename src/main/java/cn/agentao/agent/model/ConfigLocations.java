package cn.agentao.agent.model;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where configuration is read from: the session's {@code <cwd>/.env}, the user's {@code .env} and
 * {@code config.json} in {@code $XDG_CONFIG_HOME/agent} (falling back to {@code ~/.config/agent}).
 */
public record ConfigLocations(Path projectDotEnv, Path userDotEnv, Path userConfigJson) {

    public static ConfigLocations standard(Path sessionCwd, Map<String, String> environment) {
        Path userDir = userConfigDir(environment);
        return new ConfigLocations(
                sessionCwd == null ? null : sessionCwd.resolve(".env"),
                userDir.resolve(".env"),
                userDir.resolve("config.json"));
    }

    /** {@code $XDG_CONFIG_HOME/agent} when that is an absolute path, else {@code ~/.config/agent}. */
    public static Path userConfigDir(Map<String, String> environment) {
        String xdg = environment.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg.strip()).isAbsolute()) {
            return Path.of(xdg.strip(), "agent");
        }
        return Path.of(System.getProperty("user.home"), ".config", "agent");
    }
}
