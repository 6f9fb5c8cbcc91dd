package cn.agentao.agent.tools.search;

import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.tools.ToolPaths;
import cn.agentao.agent.permission.Glob;
import cn.agentao.agent.permission.ProtectedPaths;
import cn.agentao.agent.util.Json;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.regex.Pattern;

/**
 * One grep call: the calling thread walks the tree in order while worker threads search the files it finds;
 * results are taken strictly in walk order, so the output (which lines, the cut at the match and character
 * bounds, the file count) is exactly what a search of one file after another gives, only sooner. Stops within
 * a few tens of milliseconds of a cancellation, mid-file included.
 */
final class GrepSearch {
    /** Worker threads by default: one per processor, at most four. */
    static final int DEFAULT_THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    private static final long WAIT_SLICE_MS = 20;

    private final ToolContext ctx;
    private final Pattern pattern;
    private final List<String> literals;
    private final LiteralFinder finder;
    private final Ripgrep ripgrep;
    private final int maxMatches;
    private final int threads;
    private final Libc libc;

    private final StringBuilder out = new StringBuilder();
    private int matches;
    private int files;
    private boolean cut;
    private boolean finished;
    private boolean walkTruncated;
    private int secretsSkipped;

    /**
     * @param prefilter whether to pass over text without the regex's required literals (always the same
     *                  result; off only to compare)
     * @param threads   worker threads (and helpers reading directories ahead); 0 searches on the calling thread
     * @param ripgrep   when not null and there is a prefilter, lists the tree and the files holding a required
     *                  literal first, so the walk needs no {@code lstat} and reads only those files
     */
    GrepSearch(ToolContext ctx, Pattern pattern, boolean prefilter, int maxMatches, int threads, Ripgrep ripgrep) {
        this(ctx, pattern, prefilter, maxMatches, threads, ripgrep, Libc.ifLinked());
    }

    /** @param libc the C library's scans and listings, or null for the Java ones alone (the same result; null to compare) */
    GrepSearch(ToolContext ctx, Pattern pattern, boolean prefilter, int maxMatches, int threads, Ripgrep ripgrep,
               Libc libc) {
        this.ctx = ctx;
        this.pattern = pattern;
        this.libc = libc;
        List<List<String>> every = prefilter ? RequiredLiterals.every(pattern.pattern(), ignoreCase()) : null;
        this.literals = every == null ? null : every.get(0);
        this.finder = every == null ? null : new LiteralFinder(every, ignoreCase(), libc);
        this.ripgrep = ripgrep;
        this.maxMatches = maxMatches;
        this.threads = threads;
    }

    private boolean ignoreCase() {
        return (pattern.flags() & Pattern.CASE_INSENSITIVE) != 0;
    }

    /** Searches one file, or a tree (with an optional glob filter on names or, with a '/', on paths). */
    ToolResult run(Path path, String glob, boolean includeIgnored) throws IOException, InterruptedException {
        if (Files.isRegularFile(path)) {
            FileGrep grep = new FileGrep(pattern, finder, this::cancelled, libc);
            try {
                consume(grep.search(path, Files.size(path), maxMatches + 1), path);
            } catch (FileGrep.Stopped e) {
                throw new InterruptedException("search cancelled");
            }
            return result();
        }
        Pattern filter = glob == null ? null : Glob.path(glob);
        boolean byPath = glob != null && glob.contains("/");
        Ripgrep.Listing known = ripgrep == null || finder == null ? null
                : ripgrep.candidates(path, includeIgnored, literals, ignoreCase(), GrepTool.MAX_FILE_BYTES, ctx);
        FileTreeWalker walker = new FileTreeWalker(path, !includeIgnored, GrepTool.MAX_WALK, ctx.cancellation())
                .known(known).libc(libc).parallel(threads);
        Workers workers = new Workers();
        try {
            walker.walk(entry -> {
                if (!entry.isRegularFile()) return true;
                if (ProtectedPaths.isSecretName(entry.name())) { // asked about one by one, never searched in bulk
                    secretsSkipped++;
                    return true;
                }
                if (filter != null) {
                    String subject = byPath ? entry.relative() : entry.path().getFileName().toString();
                    if (!filter.matcher(subject).matches()) return true;
                }
                Task task = new Task(entry.path(), entry.knownSize());
                // listed by rg without a literal or a NUL: text (at most the size bound) with no matching line
                if (known != null && known.files().contains(entry.relative())
                        && !known.candidates().contains(entry.relative())) {
                    task.complete(FileGrep.Result.NOTHING, null);
                }
                workers.submit(task);
                workers.drain(false);
                return !finished;
            });
            workers.drain(true);
        } finally {
            workers.close();
        }
        walkTruncated = walker.truncated() && !finished;
        return result();
    }

    private boolean cancelled() {
        return ctx.cancellation().isCancelled() || Thread.currentThread().isInterrupted();
    }

    private boolean full() {
        return matches >= maxMatches || out.length() >= GrepTool.MAX_OUTPUT_CHARS;
    }

    /** Adds one file's result, exactly as a search of one file after another would. */
    private void consume(FileGrep.Result r, Path file) {
        if (finished || !r.searched()) return;
        files++;
        String shown = null;
        for (FileGrep.Hit hit : r.hits()) {
            if (full()) {
                cut = true;
                finished = true;
                return;
            }
            if (shown == null) shown = ToolPaths.display(ctx, file);
            out.append(shown).append(':').append(hit.line()).append(':').append(hit.text()).append('\n');
            matches++;
        }
        if (full()) finished = true;
    }

    private ToolResult result() {
        if (matches == 0) out.append("No matches for '").append(pattern.pattern()).append("' in ")
                .append(files).append(files == 1 ? " file" : " files").append(".\n");
        if (cut || full()) {
            out.append("[Output stopped at ").append(matches).append(" matching lines")
                    .append(cut ? "; there are more" : "; there may be more")
                    .append(". Narrow the pattern, path or glob to see the rest.]\n");
        }
        if (secretsSkipped > 0) {
            out.append("[").append(secretsSkipped).append(secretsSkipped == 1 ? " .env file was" : " .env files were")
                    .append(" not searched: they may hold keys. Search one by its path to ask the user.]\n");
        }
        if (walkTruncated) out.append("[Search stopped after ").append(GrepTool.MAX_WALK).append(" entries; narrow the path.]\n");
        return new ToolResult(out.toString(), List.of(), false, Json.object().put("matches", matches)
                .put("files", files).put("truncated", cut || full() || walkTruncated));
    }

    /** A file to search and, once done, what it gave. */
    private static final class Task {
        final Path path;
        final long size;
        FileGrep.Result result;
        Throwable failure;
        boolean done;

        Task(Path path, long size) {
            this.path = path;
            this.size = size;
        }

        synchronized void complete(FileGrep.Result r, Throwable t) {
            result = r;
            failure = t;
            done = true;
            notifyAll();
        }

        synchronized boolean isDone() {
            return done;
        }
    }

    /** The worker threads (or, with none, the calling thread) and the tasks in walk order. */
    private final class Workers implements AutoCloseable {
        private static final Task END = new Task(Path.of(""), 0);
        private final LinkedBlockingQueue<Task> queue = new LinkedBlockingQueue<>();
        private final List<Task> tasks = new ArrayList<>();
        private final FileGrep inline;
        private volatile boolean stop;
        private int next;

        Workers() {
            inline = threads == 0 ? new FileGrep(pattern, finder, this::stopped, libc) : null;
            for (int t = 0; t < threads; t++) {
                Thread.ofPlatform().daemon().name("grep-" + t).start(this::work);
            }
        }

        void submit(Task task) {
            tasks.add(task);
            if (task.isDone()) return;
            if (inline == null) {
                queue.add(task);
                return;
            }
            try {
                task.complete(inline.search(task.path, task.size, maxMatches + 1), null);
            } catch (Throwable t) {
                task.complete(null, t);
            }
        }

        /** Takes finished results in order; with {@code all}, waits for every one (or the end of the search). */
        void drain(boolean all) throws InterruptedException {
            while (next < tasks.size() && !finished) {
                Task t = tasks.get(next);
                if (!t.isDone()) {
                    if (!all) return;
                    await(t);
                }
                next++;
                if (t.failure instanceof FileGrep.Stopped) throw new InterruptedException("search cancelled");
                if (t.failure instanceof RuntimeException e) throw e;
                if (t.failure instanceof Error e) throw e;
                consume(t.result, t.path);
            }
        }

        private void await(Task t) throws InterruptedException {
            synchronized (t) {
                while (!t.done) {
                    if (ctx.cancellation().isCancelled()) throw new InterruptedException("search cancelled");
                    t.wait(WAIT_SLICE_MS);
                }
            }
        }

        private boolean stopped() {
            return stop || cancelled();
        }

        private void work() {
            FileGrep grep = new FileGrep(pattern, finder, this::stopped, libc);
            while (true) {
                Task t;
                try {
                    t = queue.take();
                } catch (InterruptedException e) {
                    return;
                }
                if (t == END) return;
                if (stop) {
                    t.complete(FileGrep.Result.SKIPPED, null);
                    continue;
                }
                try {
                    t.complete(grep.search(t.path, t.size, maxMatches + 1), null);
                } catch (Throwable e) {
                    t.complete(null, e);
                }
            }
        }

        @Override
        public void close() {
            stop = true;
            for (int t = 0; t < threads; t++) queue.add(END);
        }
    }
}
