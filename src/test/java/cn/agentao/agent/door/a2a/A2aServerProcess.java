package cn.agentao.agent.door.a2a;

import cn.agentao.agent.testing.AgentProcess;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A real {@code bin/agent a2a serve --port 0} process: its URL from the "listening on" line, its stderr kept. */
public final class A2aServerProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+)");

    private final Process process;
    private final StringBuffer stderr = new StringBuffer();
    private final CompletableFuture<String> url = new CompletableFuture<>();

    private A2aServerProcess(Process process) {
        this.process = process;
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    stderr.append(line).append('\n');
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) url.complete(m.group(1));
                }
            } catch (IOException ignored) {
                // the process ended
            }
            url.completeExceptionally(new AssertionError("the server ended without listening:\n" + stderr));
        });
    }

    /** Starts {@code bin/agent a2a serve --port 0 ARGS} in {@code cwd} with exactly {@code env}. */
    public static A2aServerProcess start(Map<String, String> env, Path cwd, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(AgentProcess.home().resolve("bin/agent").toString(), "a2a", "serve", "--port", "0"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
        String path = pb.environment().get("PATH");
        String javaHome = pb.environment().get("JAVA_HOME");
        pb.environment().clear();
        if (path != null) pb.environment().put("PATH", path);
        if (javaHome != null) pb.environment().put("JAVA_HOME", javaHome);
        pb.environment().putAll(env);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        return new A2aServerProcess(pb.start());
    }

    /** The stored session behind {@code contextId} for the caller holding {@code token} (a token's contexts are its own). */
    public static String sessionOf(String token, String contextId) {
        return A2aContexts.sessionId(A2aServer.callerOf(token.getBytes(StandardCharsets.UTF_8)), contextId);
    }

    /** The base URL, once the server logged it. */
    public String url() throws Exception { return url.get(60, TimeUnit.SECONDS); }

    public String stderr() { return stderr.toString(); }

    public Process process() { return process; }

    /** SIGTERM, then the exit code (killed after 20 s). */
    public int terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) terminate();
    }
}
