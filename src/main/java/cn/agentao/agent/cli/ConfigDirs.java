package cn.agentao.agent.cli;

import java.nio.file.Path;
import java.util.Map;

/** XDG base directories for this agent. */
public final class ConfigDirs {
    private ConfigDirs() {}

    /** $XDG_CONFIG_HOME/agent, else ~/.config/agent. */
    public static Path configDir(Map<String, String> env) {
        String xdg = env.get("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
        return base.resolve("agent");
    }
}
