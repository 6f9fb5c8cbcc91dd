package cn.agentao.agent.bench;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.core.hook.HookCall;
import cn.agentao.agent.core.hook.HookEvent;
import cn.agentao.agent.hooks.CommandHooks;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * What a no-op PreToolUse hook adds to a tool call: {@code CommandHooks.run} with one hook ({@code true}) against
 * spawning the same {@code bash -c true} with the same payload on stdin directly (the hook process itself), and the
 * cost when no hook is configured. Rounds interleaved; medians.
 * Usage: bench/run-java.sh cn.agentao.agent.bench.HookBenchmark [rounds]
 */
public final class HookBenchmark {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Path dir = Files.createTempDirectory("hook-bench");
        Path withHooks = Files.createDirectories(dir.resolve("config-with"));
        Path without = Files.createDirectories(dir.resolve("config-without"));
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.writeString(withHooks.resolve("hooks.json"),
                "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]}}");
        CommandHooks hooks = new CommandHooks(withHooks, new TrustedProjects(withHooks.resolve("trusted-projects.json")));
        CommandHooks none = new CommandHooks(without, new TrustedProjects(without.resolve("trusted-projects.json")));
        ChildEnvironment children = ChildEnvironment.ofAgent(List.of(ws));
        ObjectNode payload = Json.object().put("session_id", "bench").put("cwd", ws.toString())
                .put("permission_mode", "default").put("hook_event_name", "PreToolUse").put("tool_name", "run_shell_command");
        payload.putObject("tool_input").put("command", "ls -la");
        HookCall call = new HookCall(HookEvent.PRE_TOOL_USE, "run_shell_command", payload, "bench", ws, children, Cancellation.NONE);
        byte[] stdin = (payload + "\n").getBytes(StandardCharsets.UTF_8);

        long[] hook = new long[rounds], spawn = new long[rounds], empty = new long[rounds];
        for (int i = 0; i < 20; i++) { hooks.run(call); spawnDirect(ws, children, stdin); none.run(call); } // warm-up
        for (int i = 0; i < rounds; i++) {
            long t = System.nanoTime();
            hooks.run(call);
            hook[i] = System.nanoTime() - t;
            t = System.nanoTime();
            spawnDirect(ws, children, stdin);
            spawn[i] = System.nanoTime() - t;
            t = System.nanoTime();
            none.run(call);
            empty[i] = System.nanoTime() - t;
        }
        double h = median(hook), s = median(spawn), e = median(empty);
        System.out.printf("rounds %d%n", rounds);
        System.out.printf("no-op hook through CommandHooks: %.2f ms (median)%n", h);
        System.out.printf("the same bash -c true spawned directly: %.2f ms (median)%n", s);
        System.out.printf("ours (difference): %.2f ms%n", h - s);
        System.out.printf("no hook configured: %.3f ms (median)%n", e);
    }

    private static void spawnDirect(Path ws, ChildEnvironment children, byte[] stdin) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", "-c", "true").directory(ws.toFile());
        pb.environment().clear();
        pb.environment().putAll(children.variables());
        Process p = pb.start();
        try (var in = p.getOutputStream()) {
            in.write(stdin);
        } catch (java.io.IOException ignored) {
        }
        p.getInputStream().readAllBytes();
        p.getErrorStream().readAllBytes();
        p.waitFor();
    }

    private static double median(long[] ns) {
        long[] c = ns.clone();
        Arrays.sort(c);
        return c[c.length / 2] / 1e6;
    }
}
