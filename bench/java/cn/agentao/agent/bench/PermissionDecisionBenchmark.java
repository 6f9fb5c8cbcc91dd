package cn.agentao.agent.bench;

import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.permission.PermissionEngine;
import cn.agentao.agent.permission.PermissionMemory;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.permission.PermissionRules;
import cn.agentao.agent.permission.Workspace;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What judging a shell command costs, against what running the cheapest command costs (spawning
 * {@code bash -c true}, measured in the same run): typical lines, lines with globs expanded against the file
 * system, and a {@code grep -R} whose tree (N files, default 5,000) is walked for links leading outside.
 * Run: bench/permission-decisions.sh [files] [rounds]
 */
public final class PermissionDecisionBenchmark {
    private static final List<String> TYPICAL = List.of(
            "git status", "ls -la src", "cat src/d0/f0.txt", "npm test && git diff --stat",
            "sort -uo/tmp/x in.txt", "git grep --no-index -Osh x src", "echo 'rm -rf ~' | sh",
            "find . -name '*.txt' | xargs rm -rf", "rm --rec --force build", "env -S 'rm -rf ${HOME}'");
    private static final List<String> GLOBS = List.of("cat src/*/f1*.txt", "head src/d1/*", "wc -l */*/f0.txt");

    public static void main(String[] args) throws Exception {
        int files = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        Path tmp = Files.createTempDirectory("bench-perm");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(ws.resolve(".git"));
        for (int i = 0; i < files; i++) {
            Path d = Files.createDirectories(ws.resolve("src/d" + (i % 50)));
            Files.writeString(d.resolve("f" + (i / 50) + ".txt"), "x\n");
        }
        Files.createSymbolicLink(ws.resolve("src/d7/inner"), ws.resolve("src/d8"));
        Workspace workspace = new Workspace(ws, List.of(), tmp.resolve("home"));
        PermissionEngine engine = new PermissionEngine(PermissionRules.EMPTY, new NetworkGuard(h -> List.of(), false));

        double spawn = median(rounds / 4 + 1, () -> {
            Process p = new ProcessBuilder("bash", "-c", "true").redirectInput(new File("/dev/null")).start();
            p.waitFor();
        });
        double typical = median(rounds, () -> decideAll(engine, workspace, ws, TYPICAL));
        double globs = median(rounds, () -> decideAll(engine, workspace, ws, GLOBS));
        double tree = median(Math.max(5, rounds / 10), () -> decideAll(engine, workspace, ws, List.of("grep -R x .")));
        System.out.printf("spawn bash -c true (reference): median %.2f ms%n", spawn);
        System.out.printf("typical line (mean of %d):       median %.3f ms  ratio %.3f%n", TYPICAL.size(),
                typical / TYPICAL.size(), typical / TYPICAL.size() / spawn);
        System.out.printf("glob line (mean of %d):          median %.3f ms  ratio %.3f%n", GLOBS.size(),
                globs / GLOBS.size(), globs / GLOBS.size() / spawn);
        System.out.printf("grep -R over %d files:        median %.2f ms  ratio %.2f%n", files, tree, tree / spawn);
    }

    private static void decideAll(PermissionEngine engine, Workspace workspace, Path ws, List<String> lines) {
        for (String line : lines) {
            engine.decide(new PermissionRequest.RunCommand("run_shell_command", line, ws), Mode.WORKSPACE_WRITE,
                    workspace, new PermissionMemory());
        }
    }

    interface Task {
        void run() throws Exception;
    }

    private static double median(int rounds, Task task) throws Exception {
        for (int i = 0; i < Math.min(20, rounds); i++) task.run(); // warm-up
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            long t = System.nanoTime();
            task.run();
            ms.add((System.nanoTime() - t) / 1e6);
        }
        Collections.sort(ms);
        return ms.get(ms.size() / 2);
    }
}
