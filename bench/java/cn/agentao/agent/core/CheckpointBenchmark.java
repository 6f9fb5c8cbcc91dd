package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.tool.FileAccess;
import cn.agentao.agent.core.tool.local.LocalFileAccess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What checkpoints cost a turn: the file tools' writes of a turn that changes 1 and 100 files (4 KiB source files, new
 * content each turn) through the checkpointing file access, against the same writes without it (the reference,
 * measured round by round in the same run), and the disk each checkpoint takes; then a 1 MiB file written back
 * unchanged turn after turn, whose content is stored once. Medians.
 * Usage: bench/run-java.sh cn.agentao.agent.core.CheckpointBenchmark [rounds]
 */
public final class CheckpointBenchmark {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Path dir = Files.createTempDirectory("checkpoint-bench");
        System.out.printf("rounds %d (turns per case), load %s%n", rounds, load());
        for (int files : new int[] {1, 100}) {
            Path ws = Files.createDirectories(dir.resolve("ws-" + files));
            Path shadow = dir.resolve("shadow-" + files);
            Checkpoints checkpoints = Checkpoints.open(Optional.of(shadow), ws, 0, notice -> { });
            FileAccess plain = new LocalFileAccess();
            FileAccess guarded = checkpoints.guard(plain);
            for (int i = 0; i < files; i++) Files.writeString(ws.resolve("f" + i + ".java"), source(i, -1));
            for (int w = 0; w < 20; w++) { turn(checkpoints, guarded, ws, files, -2 - w); turn(checkpoints, plain, ws, files, -2 - w); }
            long diskBefore = size(shadow);
            long[] with = new long[rounds], without = new long[rounds];
            for (int r = 0; r < rounds; r++) {
                with[r] = turn(checkpoints, guarded, ws, files, 2 * r);
                without[r] = turn(checkpoints, plain, ws, files, 2 * r + 1);
            }
            double a = median(with), b = median(without);
            System.out.printf("%3d files a turn: %.3f ms with checkpoints, %.3f ms without (reference), cost %.3f ms, ratio %.2f; "
                            + "disk per checkpoint %.1f KiB%n", files, a, b, a - b, a / b,
                    (size(shadow) - diskBefore) / (double) rounds / 1024);
        }
        Path ws = Files.createDirectories(dir.resolve("ws-big"));
        Path shadow = dir.resolve("shadow-big");
        Checkpoints checkpoints = Checkpoints.open(Optional.of(shadow), ws, 0, notice -> { });
        FileAccess guarded = checkpoints.guard(new LocalFileAccess());
        String big = "x".repeat(1 << 20);
        Path file = ws.resolve("big.txt");
        Files.writeString(file, big);
        checkpoints.turnStarted(List.of(ContentBlock.text("first")));
        guarded.writeText(file, big);
        long first = size(shadow);
        for (int r = 0; r < rounds; r++) {
            checkpoints.turnStarted(List.of(ContentBlock.text("again")));
            guarded.writeText(file, big);
        }
        System.out.printf("a 1 MiB file written back unchanged: first checkpoint %.1f KiB, each later one %.2f KiB%n",
                first / 1024.0, (size(shadow) - first) / (double) rounds / 1024);
    }

    /** One turn that writes {@code files} files, each with new content; nanoseconds for the writes. */
    private static long turn(Checkpoints checkpoints, FileAccess access, Path ws, int files, int round) throws IOException {
        checkpoints.turnStarted(List.of(ContentBlock.text("turn " + round)));
        long t = System.nanoTime();
        for (int i = 0; i < files; i++) access.writeText(ws.resolve("f" + i + ".java"), source(i, round));
        return System.nanoTime() - t;
    }

    /** About 4 KiB of Java, different for each file and round. */
    private static String source(int file, int round) {
        StringBuilder sb = new StringBuilder("class F").append(file).append(" { // round ").append(round).append('\n');
        while (sb.length() < 4096) sb.append("    int f").append(sb.length()).append(" = ").append(round).append(";\n");
        return sb.append("}\n").toString();
    }

    private static long size(Path dir) throws IOException {
        if (!Files.exists(dir)) return 0;
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    static double median(long[] ns) {
        long[] c = ns.clone();
        Arrays.sort(c);
        return c[c.length / 2] / 1e6;
    }
}
