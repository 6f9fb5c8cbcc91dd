package cn.agentao.agent.bench;

import cn.agentao.agent.tools.GlobTool;
import cn.agentao.agent.tools.GrepTool;
import cn.agentao.agent.tools.LocalCommandRunner;
import cn.agentao.agent.tools.LocalFileAccess;
import cn.agentao.agent.tools.SimpleToolContext;
import cn.agentao.agent.tools.Tool;
import cn.agentao.agent.tools.ToolProgress;
import cn.agentao.agent.tools.ToolResult;
import cn.agentao.agent.tools.UserQuestions;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.CancellationSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The {@code grep} and {@code glob} tools against ripgrep on one large tree (default: the JDK's own sources,
 * unpacked from {@code lib/src.zip} by bench/search.sh), interleaved round by round so both see the same machine
 * load. Runs in a JVM started with the agent's own options (C1 only, Serial GC). Prints the medians and the
 * ratio tool / rg for: a pattern with no match, a pattern with matches, and {@code **}{@code /*.java} against
 * {@code rg --files}; wall time, and CPU time (fairer on a busy machine: this JVM's, JIT and GC included, against
 * rg's). The first (cold) call of each tool is reported apart.
 * Run: bench/search.sh [rounds] [tree]
 */
public final class SearchBenchmark {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        String only = System.getProperty("bench.only", "");
        Path tree = Path.of(args[1]).toAbsolutePath().normalize();
        String rg = args.length > 2 ? args[2] : "/usr/bin/rg";
        var ctx = new SimpleToolContext("bench", tree, List.of(tree), new LocalFileAccess(), new LocalCommandRunner(),
                UserQuestions.UNAVAILABLE, new CancellationSource());
        record Case(String name, Tool tool, String toolArgs, List<String> rgArgs) {}
        List<Case> cases = List.of(
                new Case("grep, no match", new GrepTool(), "{\"pattern\":\"zqxjv_no_such_thing\"}",
                        List.of(rg, "-n", "zqxjv_no_such_thing", ".")),
                new Case("grep, matches", new GrepTool(), "{\"pattern\":\"ConcurrentModificationException\",\"max_matches\":2000}",
                        List.of(rg, "-n", "ConcurrentModificationException", ".")),
                new Case("grep, regex", new GrepTool(), "{\"pattern\":\"synchronized\\\\s+void\\\\s+\\\\w+Lock\"}",
                        List.of(rg, "-n", "synchronized\\s+void\\s+\\w+Lock", ".")),
                new Case("glob **/*.java", new GlobTool(), "{\"pattern\":\"**/*.java\"}",
                        List.of(rg, "--files", "-g", "*.java", ".")));
        System.out.printf("tree=%s rounds=%d (%d files)%n", tree, rounds, countFiles(tree));
        for (Case c : cases) {
            if (!c.name().startsWith(only)) continue;
            List<Double> tool = new ArrayList<>(), ref = new ArrayList<>(), toolCpu = new ArrayList<>(), refCpu = new ArrayList<>();
            double cold = 0;
            for (int r = -1; r < rounds; r++) {
                double c0 = ownCpuMs();
                double t = timeTool(c.tool(), ctx, c.toolArgs());
                double c1 = ownCpuMs(), k0 = childCpuMs();
                double g = timeProcess(c.rgArgs(), tree);
                double k1 = childCpuMs();
                if (r < 0) cold = t;
                else {
                    tool.add(t);
                    ref.add(g);
                    toolCpu.add(c1 - c0);
                    refCpu.add(k1 - k0);
                }
            }
            double mt = median(tool), mr = median(ref), ct = median(toolCpu), cr = median(refCpu);
            System.out.printf("%-16s wall: tool %5.0f ms (first call %5.0f), rg %5.0f ms, ratio %.2f | cpu: tool %5.0f ms, rg %5.0f ms, ratio %.2f%n",
                    c.name(), mt, cold, mr, mt / mr, ct, cr, ct / cr);
        }
    }

    static double timeTool(Tool tool, SimpleToolContext ctx, String args) throws Exception {
        long t0 = System.nanoTime();
        ToolResult r = tool.prepare(Json.MAPPER.readTree(args), ctx).run(ToolProgress.NONE);
        double ms = (System.nanoTime() - t0) / 1e6;
        if (r.isError()) throw new IllegalStateException(r.forModel());
        return ms;
    }

    static double timeProcess(List<String> cmd, Path dir) throws Exception {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        p.waitFor();
        return (System.nanoTime() - t0) / 1e6;
    }

    /** CPU time of this JVM (all its threads: workers, JIT, GC). */
    static double ownCpuMs() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e6;
    }

    /** CPU time of the children waited for (rg), from /proc/self/stat (clock ticks of 10 ms). */
    static double childCpuMs() throws Exception {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[13]) + Long.parseLong(f[14])) * 10.0;
    }

    static long countFiles(Path tree) throws Exception {
        try (var s = Files.walk(tree)) {
            return s.filter(Files::isRegularFile).count();
        }
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
