package cn.agentao.agent.bench;

import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.sandbox.Confinement;
import cn.agentao.agent.sandbox.SandboxPolicy;
import cn.agentao.agent.sandbox.Sandboxes;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.util.Cancellation;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The sandbox's added time per command: {@code true} through the local runner without a sandbox and in the
 * sandbox of each mode, interleaved round by round (so load on the machine hits all alike); prints the medians,
 * the added milliseconds and the ratio, and for context the cost of a bare bwrap on this machine. Run: bench/sandbox.sh [rounds]
 */
public final class SandboxBenchmark {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        Sandboxes sandboxes = Sandboxes.fromEnvironment(System.getenv());
        if (!sandboxes.available()) throw new IllegalStateException("no sandbox here: " + sandboxes.status().whyNot());
        Path ws = Files.createTempDirectory("bench-sandbox");
        Files.createDirectories(ws.resolve(".git"));
        LocalCommandRunner runner = new LocalCommandRunner();
        // a tree of 4,400 directories with a nested repository: the nested-repository walk's worst case (it stops after 1,500 entries)
        Path tree = Files.createTempDirectory("bench-sandbox-tree");
        Files.createDirectories(tree.resolve(".git"));
        Files.createDirectories(tree.resolve("sub/.git/hooks"));
        for (int a = 0; a < 20; a++) for (int b = 0; b < 20; b++) for (int c = 0; c < 10; c++) {
            Files.createDirectories(tree.resolve("d" + a + "/e" + b + "/f" + c));
        }
        List<String> names = List.of("none", "read-only", "workspace-write", "ws-write 4k dirs");
        List<Confinement> boxes = new ArrayList<>();
        boxes.add(null);
        for (Mode m : List.of(Mode.READ_ONLY, Mode.WORKSPACE_WRITE)) {
            boxes.add(new Confinement(sandboxes.sandbox().orElseThrow(), SandboxPolicy.forMode(m, List.of(ws)).orElseThrow()));
        }
        boxes.add(new Confinement(sandboxes.sandbox().orElseThrow(), SandboxPolicy.forMode(Mode.WORKSPACE_WRITE, List.of(tree)).orElseThrow()));
        List<List<Double>> times = new ArrayList<>();
        for (int i = 0; i < boxes.size(); i++) times.add(new ArrayList<>());
        for (int r = -5; r < rounds; r++) { // five warm-up rounds
            for (int i = 0; i < boxes.size(); i++) {
                long t0 = System.nanoTime();
                CommandRunner.Result res = runner.run(new CommandRunner.Spec("true", boxes.get(i) == null ? ws : boxes.get(i).policy().roots().get(0), Duration.ofSeconds(30), 4096, boxes.get(i)),
                        new CommandRunner.Listener() { }, Cancellation.NONE);
                double ms = (System.nanoTime() - t0) / 1e6;
                if (res.exitCode() == null || res.exitCode() != 0) throw new IllegalStateException(names.get(i) + ": " + res);
                if (r >= 0) times.get(i).add(ms);
            }
        }
        List<Double> bare = new ArrayList<>(); // bwrap's own floor on this machine, for context
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder("/usr/bin/bwrap", "--ro-bind", "/", "/", "true").start();
            if (p.waitFor() != 0) throw new IllegalStateException("bare bwrap failed");
            bare.add((System.nanoTime() - t0) / 1e6);
        }
        double base = median(times.get(0));
        System.out.printf("`true` through LocalCommandRunner, %d rounds, sandbox %s%n", rounds, sandboxes.sandbox().orElseThrow().kind());
        for (int i = 0; i < boxes.size(); i++) {
            double m = median(times.get(i));
            System.out.printf("%-16s median %6.1f ms  (added %5.1f ms, ratio %.2f)%n", names.get(i), m, m - base, m / base);
        }
        System.out.printf("for context, a bare `bwrap --ro-bind / / true` (ProcessBuilder only): median %.1f ms%n", median(bare));
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
