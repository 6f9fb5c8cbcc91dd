package cn.agentao.agent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One run of the real {@code bin/agent} as a command (headless {@code -p} and friends): in a directory, in
 * {@link AgentProcess#command}'s clean environment plus {@code env}, optional stdin; stdout, stderr and the exit code.
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
        ProcessBuilder pb = AgentProcess.command(env, args).directory(cwd.toFile());
        AgentRun run = new AgentRun(pb.start());
        try (OutputStream in = run.process.getOutputStream()) {
            if (stdin != null) in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        return run;
    }

    /**
     * How the agent starts with SIGINT, whatever the test's own process inherited: as from a terminal (the default
     * disposition), or ignored, as a script's background job ({@code cmd &}) starts it.
     */
    public enum Sigint { DEFAULT, IGNORED }

    /** As {@link #start(Path, Map, String, String...)}, with SIGINT's disposition set by coreutils' {@code env}. */
    public static AgentRun start(Sigint sigint, Path cwd, Map<String, String> env, String stdin, String... args) throws IOException {
        ProcessBuilder pb = AgentProcess.command(env, args).directory(cwd.toFile());
        pb.command().addAll(0, List.of("env", sigint == Sigint.IGNORED ? "--ignore-signal=INT" : "--default-signal=INT"));
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
