package cn.agentao.agent.util;

import java.nio.file.Path;
import java.util.Map;

/**
 * The user's home directory as the environment says: {@code $HOME} when it is an absolute path, else the JVM's
 * {@code user.home} (the password database). Configuration, the session store, the permission rules' and the
 * blocklist's {@code ~} all use this one answer, so a launcher that sets {@code HOME} moves all of them.
 */
public final class UserHome {
    private UserHome() {}

    public static Path from(Map<String, String> environment) {
        String home = environment.get("HOME");
        if (home != null && !home.isBlank() && Path.of(home.strip()).isAbsolute()) return Path.of(home.strip());
        return Path.of(System.getProperty("user.home"));
    }

    /** This process's home. */
    public static Path current() {
        return from(System.getenv());
    }
}
