package cn.agentao.agent.interop;

import cn.agentao.agent.testing.AgentProcess;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Node side of the interop tests: installs the pinned clients (scripts/install-interop.sh, once per JVM) and
 * runs Node programs from {@code interop/} with a clean environment, capturing their output.
 */
final class Interop {
    private static boolean installed;

    private Interop() {}

    static Path dir() {
        return AgentProcess.home().resolve("interop");
    }

    static Path agentCommand() {
        return AgentProcess.home().resolve("bin/agent");
    }

    /** Runs scripts/install-interop.sh (a no-op when node_modules matches the lock file). */
    static synchronized void ensureInstalled() throws IOException, InterruptedException {
        if (installed) return;
        Result r = run(List.of("bash", AgentProcess.home().resolve("scripts/install-interop.sh").toString()),
                Map.of(), AgentProcess.home(), Duration.ofMinutes(5));
        if (r.exitCode() != 0) {
            throw new AssertionError("scripts/install-interop.sh failed (" + r.exitCode() + "):\n" + r.stdout() + r.stderr());
        }
        installed = true;
    }

    record Result(int exitCode, String stdout, String stderr) {}

    /**
     * Runs {@code command} in {@code cwd} with only PATH, LANG and JAVA_HOME kept from this JVM's environment plus
     * {@code env}; kills it (and its children) after {@code timeout}.
     */
    static Result run(List<String> command, Map<String, String> env, Path cwd, Duration timeout)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
        Map<String, String> e = pb.environment();
        Map<String, String> keep = new HashMap<>();
        for (String k : List.of("PATH", "HOME", "LANG", "JAVA_HOME", "TMPDIR")) if (e.containsKey(k)) keep.put(k, e.get(k));
        e.clear();
        e.putAll(keep);
        e.putAll(env);
        Path out = Files.createTempFile("interop-out", ".txt");
        Path err = Files.createTempFile("interop-err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(devNull()));
        Process p = pb.start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                throw new AssertionError(command + " did not finish within " + timeout + "\nstdout:\n"
                        + Files.readString(out, StandardCharsets.UTF_8) + "\nstderr:\n" + tail(Files.readString(err, StandardCharsets.UTF_8)));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static java.io.File devNull() {
        return new java.io.File("/dev/null");
    }

    static String tail(String s) {
        return s.length() > 8000 ? "…" + s.substring(s.length() - 8000) : s;
    }

    /** The agent's environment for a test: the fake model, a private store and config, a private HOME. */
    static Map<String, String> agentEnvironment(Map<String, String> model, Path dir) throws IOException {
        Map<String, String> env = new HashMap<>(model);
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("XDG_DATA_HOME", dir.resolve("data").toString());
        Path home = Files.createDirectories(dir.resolve("home"));
        env.put("HOME", home.toString());
        return env;
    }

    static List<String> node(String script, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add("node");
        cmd.add(dir().resolve(script).toString());
        cmd.addAll(List.of(args));
        return cmd;
    }
}
