package cn.agentao.agent.bench;

import cn.agentao.agent.tools.search.GlobTool;
import cn.agentao.agent.tools.search.GrepTool;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.core.tool.local.LocalFileAccess;
import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.UserQuestions;
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
 * load. Runs in a JVM started with the agent's own options (C1 only, Serial GC). Each tool runs twice a round:
 * with rg's help ({@code -Dagent.search=rg}, as {@code AGENT_SEARCH=rg}) and as it is by default (the Java path alone).
 * Prints the medians and the ratio tool / rg for: a pattern with no match, a pattern with matches, a regex, and
 * {@code **}{@code /*.java} against {@code rg --files}; wall time, and CPU time (fairer on a busy machine: this
 * JVM's, JIT and GC included, plus its rg child's, against rg's). The first (cold) call is reported apart.
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
        System.out.printf("tree=%s rounds=%d (%d files), load average %.1f%n", tree, rounds, countFiles(tree),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        for (Case c : cases) {
            if (!c.name().startsWith(only)) continue;
            // per round, interleaved: the tool with rg's help, the tool as it is by default (Java alone), rg itself
            List<Double> viaRg = new ArrayList<>(), java = new ArrayList<>(), ref = new ArrayList<>();
            List<Double> viaRgCpu = new ArrayList<>(), javaCpu = new ArrayList<>(), refCpu = new ArrayList<>();
            double coldRg = 0, coldJava = 0;
            for (int r = -1; r < rounds; r++) {
                System.setProperty("agent.search", "rg");
                double[] a = timeToolCpu(c.tool(), ctx, c.toolArgs());
                System.clearProperty("agent.search"); // the default: the Java path alone
                double[] j = timeToolCpu(c.tool(), ctx, c.toolArgs());
                double k0 = childCpuMs();
                double g = timeProcess(c.rgArgs(), tree);
                double k1 = childCpuMs();
                if (r < 0) {
                    coldRg = a[0];
                    coldJava = j[0];
                    continue;
                }
                viaRg.add(a[0]);
                java.add(j[0]);
                ref.add(g);
                viaRgCpu.add(a[1]);
                javaCpu.add(j[1]);
                refCpu.add(k1 - k0);
            }
            double mr = median(ref), cr = median(refCpu);
            System.out.printf("%-16s rg itself: wall %5.0f ms, cpu %5.0f ms%n", c.name(), mr, cr);
            System.out.printf("  tool, rg help:  wall %5.0f ms (first call %5.0f), ratio %.2f | cpu %5.0f ms, ratio %.2f%n",
                    median(viaRg), coldRg, median(viaRg) / mr, median(viaRgCpu), median(viaRgCpu) / cr);
            System.out.printf("  tool (default): wall %5.0f ms (first call %5.0f), ratio %.2f | cpu %5.0f ms, ratio %.2f%n",
                    median(java), coldJava, median(java) / mr, median(javaCpu), median(javaCpu) / cr);
        }
    }

    /** Wall and CPU time of one call: this JVM's CPU plus that of the children it waited for (rg). */
    static double[] timeToolCpu(Tool tool, SimpleToolContext ctx, String args) throws Exception {
        double c0 = ownCpuMs() + childCpuMs();
        double t = timeTool(tool, ctx, args);
        return new double[]{t, ownCpuMs() + childCpuMs() - c0};
    }

    static double timeTool(Tool tool, SimpleToolContext ctx, String args) throws Exception {
        long t0 = System.nanoTime();
        ToolResult r = tool.prepare(Json.mapper().readTree(args), ctx).run(ToolProgress.NONE);
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
