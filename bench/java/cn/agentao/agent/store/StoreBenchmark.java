package cn.agentao.agent.store;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Measures the store on a real disk: reading a 10,000-record session, the cost of a durable append with and
 * without fsync, and listing many sessions. Run by {@code scripts/bench-store.sh}; prints a Markdown table.
 * Usage: {@code StoreBenchmark [dir]} (default {@code target/bench-store}; its contents are replaced).
 */
public final class StoreBenchmark {
    private static final int RECORDS = 10_000;
    private static final int READ_RUNS = 11;
    private static final int FSYNC_APPENDS = 500;
    private static final int LIST_SESSIONS = 1_000;

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "target/bench-store").toAbsolutePath();
        clear(dir);
        System.out.println("Store benchmark in " + dir + " (Java " + Runtime.version() + ", "
                + Runtime.getRuntime().availableProcessors() + " CPUs)\n");
        System.out.println("| measurement | result |\n|---|---|");

        SessionStore store = new SessionStore(dir.resolve("read"), SyncPolicy.NO_FSYNC);
        try (SessionWriter w = store.create("s10k", dir, null)) {
            for (int i = 0; i < RECORDS; i++) appendTypical(w, i);
        }
        long bytes = Files.size(store.logFile("s10k"));
        double first = millis(() -> store.read("s10k"));
        double[] runs = new double[READ_RUNS];
        for (int i = 0; i < READ_RUNS; i++) runs[i] = millis(() -> store.read("s10k"));
        row("read + parse 10,000 records (" + bytes / 1024 + " KiB), first read in the JVM", ms(first));
        row("read + parse 10,000 records, median of " + READ_RUNS + " further runs", ms(median(runs)));

        for (SyncPolicy sync : SyncPolicy.values()) {
            int n = sync == SyncPolicy.FSYNC ? FSYNC_APPENDS : RECORDS;
            SessionStore appendStore = new SessionStore(dir.resolve("append-" + sync), sync);
            try (SessionWriter w = appendStore.create("a", dir, null)) {
                for (int i = 0; i < 200; i++) appendTypical(w, i); // warm-up
                double[] each = new double[n];
                for (int i = 0; i < n; i++) {
                    int k = i;
                    each[i] = millis(() -> appendTypical(w, k)) * 1000;
                }
                row("append one record, " + sync + " (median / mean / p99 of " + n + ")",
                        String.format("%.0f / %.0f / %.0f µs", median(each), Arrays.stream(each).average().orElse(0),
                                percentile(each, 0.99)));
            }
        }

        SessionStore many = new SessionStore(dir.resolve("list"), SyncPolicy.NO_FSYNC);
        for (int s = 0; s < LIST_SESSIONS; s++) {
            try (SessionWriter w = many.create("session-" + s, dir.resolve("p" + s % 10), null)) {
                for (int i = 0; i < 20; i++) appendTypical(w, i);
            }
        }
        double cold = millis(() -> new SessionStore(dir.resolve("list")).list(null, null, 50));
        double warm = millis(() -> new SessionStore(dir.resolve("list")).list(null, null, 50));
        row("list first 50 of " + LIST_SESSIONS + " sessions, no index (builds it)", ms(cold));
        row("list first 50 of " + LIST_SESSIONS + " sessions, with the index, new store", ms(warm));
    }

    /** A mix like a coding session's: prompts, streamed chunks, tool calls with output, model history. */
    private static void appendTypical(SessionWriter w, int i) {
        switch (i % 10) {
            case 0 -> w.append("user_message", content("text", "Please look at the failing test in module " + i
                    + " and explain what is wrong with the boundary handling there. ".repeat(2)));
            case 1, 2, 3, 4 -> w.append("agent_chunk", Json.object().set("content",
                    block("Streaming a piece of the answer, number " + i + ", with some words. ")));
            case 5 -> w.append("tool_call", Json.object().put("toolCallId", "call_" + i).put("title", "Read src/Foo" + i + ".java")
                    .put("kind", "read").put("status", "pending")
                    .set("rawInput", Json.object().put("path", "/home/ada/projects/calc/src/Foo" + i + ".java")));
            case 6 -> w.append("tool_call_update", Json.object().put("toolCallId", "call_" + (i - 1)).put("status", "completed")
                    .set("content", Json.mapper().createArrayNode().add(Json.object().put("type", "content")
                            .set("content", block("public class Foo { int x; }\n".repeat(40))))));
            case 7, 8 -> w.append("model_message", Json.object().set("message", Json.object().put("type", "AI")
                    .put("text", "The boundary check uses <= where it needs <. ".repeat(20))));
            default -> w.append("thought_chunk", Json.object().set("content", block("Thinking about step " + i)));
        }
    }

    private static ObjectNode content(String type, String text) {
        return Json.object().set("content", Json.mapper().createArrayNode().add(Json.object().put("type", type).put("text", text)));
    }

    private static ObjectNode block(String text) {
        return Json.object().put("type", "text").put("text", text);
    }

    private static double millis(Runnable action) {
        long start = System.nanoTime();
        action.run();
        return (System.nanoTime() - start) / 1e6;
    }

    private static double median(double[] values) {
        return percentile(values, 0.5);
    }

    private static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))];
    }

    private static String ms(double millis) {
        return String.format("%.1f ms", millis);
    }

    private static void row(String what, String result) {
        System.out.println("| " + what + " | " + result + " |");
    }

    private static void clear(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
            }
        }
        Files.createDirectories(dir);
    }
}
