package cn.agentao.agent.hooks;

import java.util.Map;

/** Claude Code's names for the tools that have one here, so its hook matchers ({@code Bash}, {@code Edit|Write}) work. */
public final class ClaudeToolNames {
    private static final Map<String, String> CLAUDE = Map.of(
            "run_shell_command", "Bash",
            "read_file", "Read",
            "write_file", "Write",
            "edit", "Edit",
            "glob", "Glob",
            "grep", "Grep",
            "web_fetch", "WebFetch",
            "web_search", "WebSearch",
            "todo_write", "TodoWrite",
            "list_directory", "LS");

    private ClaudeToolNames() {}

    /** Claude Code's name for tool {@code name}, or null. */
    static String claudeName(String name) {
        return CLAUDE.get(name);
    }

    /** The tool called {@code claudeName} by Claude Code ({@code Read}, {@code Bash}), or null when it has none here. */
    public static String ours(String claudeName) {
        for (Map.Entry<String, String> e : CLAUDE.entrySet()) if (e.getValue().equals(claudeName)) return e.getKey();
        return null;
    }
}
