package cn.agentao.agent.core.tool;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A session's background commands ({@code run_shell_command} with {@code background: true}): each has an id
 * ({@code bg1}, {@code bg2}, …) by which {@code shell_output} reads it and {@code shell_kill} ends it. At most
 * {@link #LIMIT} run at once; closing the table (when the session closes) ends them all. Thread-safe.
 */
public final class BackgroundProcesses implements AutoCloseable {
    /** How many background commands one session may have running at once. */
    public static final int LIMIT = 5;
    /** Commands that ended are still listed (to be read) up to this many; the oldest ended go first. */
    private static final int KEPT_ENDED = 20;
    private static final int SHOWN_COMMAND_CHARS = 200;

    /**
     * One background command.
     *
     * @param onEnd what to do once it ended (checks of what a sandboxed command may have left); its lines are told to
     *              the model with the output that shows the end, once
     */
    public static final class Entry {
        private final String id;
        private final String commandLine;
        private final Path cwd;
        private final boolean sandboxed;
        private final CommandRunner.Background process;
        private final Supplier<List<String>> onEnd;
        private boolean endHandled; // guarded by this

        Entry(String id, String commandLine, Path cwd, boolean sandboxed, CommandRunner.Background process,
              Supplier<List<String>> onEnd) {
            this.id = id;
            this.commandLine = commandLine;
            this.cwd = cwd;
            this.sandboxed = sandboxed;
            this.process = process;
            this.onEnd = onEnd;
        }

        public String id() { return id; }
        public String commandLine() { return commandLine; }
        public Path cwd() { return cwd; }
        public boolean sandboxed() { return sandboxed; }
        public CommandRunner.Background process() { return process; }

        /** Once it ended: the notes of its end checks the first time, then nothing. */
        public synchronized List<String> endNotes() {
            if (endHandled || process.running()) return List.of();
            endHandled = true;
            return onEnd == null ? List.of() : onEnd.get();
        }

        /** {@code bg1: `npm run dev` (pid 123, sandboxed)}: the command on one line, cut short past 200 characters. */
        public String describe() {
            String oneLine = commandLine.strip().replace("\n", " ⏎ ");
            if (oneLine.length() > SHOWN_COMMAND_CHARS) oneLine = oneLine.substring(0, SHOWN_COMMAND_CHARS) + "…";
            return id + ": `" + oneLine + "` (pid " + process.pid() + (sandboxed ? ", sandboxed" : ", outside the sandbox") + ")";
        }
    }

    /** Starts the process; called with the table's lock held, once the limit is checked. */
    @FunctionalInterface
    public interface Starter {
        CommandRunner.Background start() throws Exception;
    }

    private final Map<String, Entry> entries = new LinkedHashMap<>(); // guarded by this
    private int next = 1; // guarded by this
    private boolean closed; // guarded by this

    /**
     * Starts a command through {@code starter} and lists it.
     *
     * @throws ToolException when {@link #LIMIT} already run, or the session closed
     */
    public synchronized Entry start(String commandLine, Path cwd, boolean sandboxed, Starter starter,
                                    Supplier<List<String>> onEnd) throws Exception {
        if (closed) throw new ToolException("the session is closing; no command can start in the background");
        List<Entry> running = running();
        if (running.size() >= LIMIT) {
            throw new ToolException(LIMIT + " background commands are already running in this session ("
                    + String.join(", ", running.stream().map(Entry::id).toList())
                    + "): end one with shell_kill before starting another");
        }
        Entry e = new Entry("bg" + next, commandLine, cwd, sandboxed, starter.start(), onEnd);
        next++;
        entries.put(e.id(), e);
        List<Entry> ended = entries.values().stream().filter(x -> !x.process().running()).toList();
        for (int i = 0; i < ended.size() - KEPT_ENDED; i++) entries.remove(ended.get(i).id());
        return e;
    }

    public synchronized Optional<Entry> get(String id) {
        return Optional.ofNullable(entries.get(id));
    }

    /** The commands still running, oldest first. */
    public synchronized List<Entry> running() {
        return entries.values().stream().filter(e -> e.process().running()).toList();
    }

    /** Every command listed (running, or ended and kept to be read), oldest first. */
    public synchronized List<Entry> all() {
        return List.copyOf(entries.values());
    }

    /** Ends every command still running; no command starts afterwards. */
    @Override
    public void close() {
        List<Entry> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(entries.values());
        }
        List<Thread> killers = new ArrayList<>();
        for (Entry e : all) {
            if (e.process().running()) killers.add(Thread.ofVirtual().name("background-kill-" + e.id()).start(() -> {
                e.process().kill();
                e.endNotes();
            }));
        }
        boolean interrupted = false;
        for (Thread t : killers) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException ie) {
                    interrupted = true;
                }
            }
        }
        for (Entry e : all) e.endNotes(); // those that ended unread get their end checks too
        if (interrupted) Thread.currentThread().interrupt();
    }
}
