package cn.agentao.agent.door.terminal;

import java.nio.file.Path;
import java.util.Map;

/** Where the chat keeps its input history: {@code $XDG_STATE_HOME/agent/history}, else {@code ~/.local/state/agent/history}. */
final class History {
    private History() {}

    static Path file(Map<String, String> env) {
        String state = env.get("XDG_STATE_HOME");
        Path base = state != null && !state.isBlank() && Path.of(state).isAbsolute() ? Path.of(state)
                : Path.of(System.getProperty("user.home"), ".local", "state");
        return base.resolve("agent").resolve("history");
    }
}
