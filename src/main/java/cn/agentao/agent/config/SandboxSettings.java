package cn.agentao.agent.config;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the OS sandbox is configured from: {@value #ENV} ({@code auto}, the default, or {@code none}) and the
 * variables that say what to hide or show ({@code HOME}, {@code SSH_AUTH_SOCK}, {@code TMPDIR}, {@code JAVA_HOME}),
 * from the real environment only (never a project's {@code .env}); and the {@code sandbox} entry of the user's
 * {@code config.json}: {@code {"readablePaths": ["/srv/data", "~/datasets"], "writablePaths": ["~/.cache/bazel"]}},
 * more paths a sandboxed command sees (read-only; writable in workspace-write), for the machine's user only.
 * Absolute or {@code ~/…}; anything else is a problem (a plain sentence naming the file and key) and left out.
 *
 * @param setting       the raw {@value #ENV} value, or null
 * @param userConfigDir the user's configuration directory, which a sandboxed command never sees
 */
public record SandboxSettings(String setting, Path home, Path userConfigDir, String sshAuthSock, String tmpDir,
                              String javaHome, List<Path> readable, List<Path> writable, List<String> problems) {
    /** {@code auto} (default) or {@code none}: behave as if no sandbox could be had. */
    public static final String ENV = "AGENT_SANDBOX";

    public SandboxSettings {
        readable = List.copyOf(readable);
        writable = List.copyOf(writable);
        problems = List.copyOf(problems);
    }

    /** From the environment, with the paths of {@code userJson}'s {@code sandbox} entry. */
    public static SandboxSettings from(Map<String, String> env, Path configDir, ConfigJson userJson) {
        Path home = cn.agentao.agent.util.UserHome.from(env);
        List<Path> readable = new ArrayList<>(), writable = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        JsonNode node = userJson.section("sandbox");
        if (!node.isMissingNode() && !node.isNull()) {
            if (!node.isObject()) {
                problems.add(userJson.name() + ": \"sandbox\" must be an object; it was ignored.");
            } else {
                readable = paths(node.get("readablePaths"), "readablePaths", userJson.name(), home, problems);
                writable = paths(node.get("writablePaths"), "writablePaths", userJson.name(), home, problems);
            }
        }
        return new SandboxSettings(env.get(ENV), home, configDir, env.get("SSH_AUTH_SOCK"), env.get("TMPDIR"),
                env.get("JAVA_HOME"), readable, writable, problems);
    }

    /** From the environment alone, without paths of the user's (the help text's trial, tests). */
    public static SandboxSettings fromEnvironment(Map<String, String> env) {
        return from(env, AgentConfig.userConfigDir(env), new ConfigJson(null, null, false));
    }

    private static List<Path> paths(JsonNode node, String key, String file, Path home, List<String> problems) {
        if (node == null || node.isNull()) return List.of();
        List<Path> out = new ArrayList<>();
        if (!node.isArray()) {
            problems.add(file + ": \"sandbox." + key + "\" must be an array of paths; it was ignored.");
            return out;
        }
        for (JsonNode item : node) {
            String p = item.isTextual() ? item.asText().strip() : "";
            Path path = p.equals("~") ? home : p.startsWith("~/") ? home.resolve(p.substring(2)) : p.startsWith("/") ? Path.of(p) : null;
            if (path == null || path.normalize().getNameCount() == 0) {
                problems.add(file + ": \"sandbox." + key + "\" entry '" + p + "' is not an absolute path or ~/…, nor may it be /; it was ignored.");
            } else {
                out.add(path.normalize());
            }
        }
        return out;
    }
}
