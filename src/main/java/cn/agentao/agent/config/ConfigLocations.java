package cn.agentao.agent.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where configuration is read from: the session's {@code <cwd>/.env} (and whether the user trusts that project),
 * the user's {@code .env} and {@code config.json} in {@code $XDG_CONFIG_HOME/agent} (falling back to
 * {@code $HOME/.config/agent}).
 */
public record ConfigLocations(Path projectDotEnv, boolean projectTrusted, Path userDotEnv, Path userConfigJson) {
    /** The user's list of trusted projects, beside {@code config.json}. */
    public static final String TRUSTED_PROJECTS = "trusted-projects.json";

    /** For a project the user has not trusted. */
    public static ConfigLocations standard(Path sessionCwd, Map<String, String> environment) {
        return standard(sessionCwd, environment, false);
    }

    public static ConfigLocations standard(Path sessionCwd, Map<String, String> environment, boolean projectTrusted) {
        Path userDir = userConfigDir(environment);
        return new ConfigLocations(
                sessionCwd == null ? null : sessionCwd.resolve(".env"),
                projectTrusted,
                userDir.resolve(".env"),
                userDir.resolve(cn.agentao.agent.config.ConfigJson.USER_FILE));
    }

    /** The file that lists the projects the user trusts. */
    public Path trustedProjects() {
        return userConfigJson.resolveSibling(TRUSTED_PROJECTS);
    }

    /** {@code $XDG_CONFIG_HOME/agent} when that is an absolute path, else {@code $HOME/.config/agent}. */
    public static Path userConfigDir(Map<String, String> environment) {
        return cn.agentao.agent.config.AgentConfig.userConfigDir(environment);
    }
}
