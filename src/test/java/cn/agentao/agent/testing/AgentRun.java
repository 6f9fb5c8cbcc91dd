package cn.agentao.agent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One run of the real {@code bin/agent} as a command (headless {@code -p} and friends): in a directory, with a
 * clean environment plus {@code env} (PATH, HOME, JAVA_HOME, LANG, TMPDIR kept; config and data under a fresh
 * temporary directory unless {@code env} says otherwise), optional stdin; stdout, stderr and the exit code.
 */
public final class AgentRun {
    /** What a finished run left. */
    public record Result(int exit, String stdout, String stderr) {
        public List<String> stdoutLines() { return stdout.isEmpty() ? List.of() : List.of(stdout.split("\n")); }
    }

    private final Process process;
    private final CompletableFuture<String> stdout;
    private final CompletableFuture<String> stderr;

    private AgentRun(Process process) {
        this.process = process;
        this.stdout = drain(process.getInputStream());
        this.stderr = drain(process.getErrorStream());
    }

    private static CompletableFuture<String> drain(InputStream in) {
        CompletableFuture<String> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (in) {
                f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                f.complete("");
            }
        });
        return f;
    }

    /** Starts {@code bin/agent args} in {@code cwd}; {@code stdin} null leaves stdin empty (closed). */
    public static AgentRun start(Path cwd, Map<String, String> env, String stdin, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(AgentProcess.home().resolve("bin/agent").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
        Map<String, String> e = pb.environment();
        Map<String, String> keep = new HashMap<>();
        for (String k : List.of("PATH", "HOME", "JAVA_HOME", "LANG", "TMPDIR")) if (e.containsKey(k)) keep.put(k, e.get(k));
        e.clear();
        e.putAll(keep);
        Path tmp = Files.createTempDirectory("agent-run");
        e.put("XDG_CONFIG_HOME", tmp.resolve("config").toString());
        e.put("XDG_DATA_HOME", tmp.resolve("data").toString());
        e.put("XDG_STATE_HOME", tmp.resolve("state").toString());
        e.putAll(env);
        AgentRun run = new AgentRun(pb.start());
        try (OutputStream in = run.process.getOutputStream()) {
            if (stdin != null) in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        return run;
    }

    /** Runs to the end (at most a minute). */
    public static Result run(Path cwd, Map<String, String> env, String stdin, String... args) throws Exception {
        return start(cwd, env, stdin, args).await(Duration.ofSeconds(60));
    }

    public Process process() { return process; }

    /** Sends SIGINT, as Ctrl-C in a terminal would. */
    public void interrupt() throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start().waitFor();
    }

    public Result await(Duration timeout) throws Exception {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("agent did not finish within " + timeout + "; stderr: " + stderr.getNow(""));
        }
        return new Result(process.exitValue(), stdout.get(10, TimeUnit.SECONDS), stderr.get(10, TimeUnit.SECONDS));
    }
}
