package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.repository.CheckpointStore;
import cn.agentao.agent.core.tool.FileAccess;
import cn.agentao.agent.util.IoErrors;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A session's checkpoints: before a turn first changes a file through the file tools ({@code write_file},
 * {@code edit}), what the file held (or that it did not exist) goes to the session's {@link CheckpointStore}, and after
 * each write the hash of what the agent wrote. {@link #undo} takes back the last turn that changed files,
 * {@link #rewind} every turn from the one given; neither touches a file whose content is no longer what the agent
 * wrote (the user changed it since): it is named and left alone. Shell commands' changes are not recorded.
 *
 * <p>Turns are numbered as the session's prompts to the model (restored when the session is reopened). The log is
 * read when first needed, so a session that never writes a file costs nothing here.
 */
final class Checkpoints {
    private static final Logger log = LoggerFactory.getLogger(Checkpoints.class);
    /** Files bigger than this are not kept (their change cannot be taken back; a notice says so). */
    static final long MAX_FILE_BYTES = 16L << 20;
    private static final int PROMPT_CHARS = 60;

    /** The state of one file: absent, a kept content, or not kept (over the size limit). */
    private record State(String hash, boolean text, long tooLarge) {
        static final State ABSENT = new State(null, false, -1);

        boolean absent() { return hash == null && tooLarge < 0; }
    }

    /** What one turn did to one file: how it was before, and the hash of the last thing the agent wrote (null: none). */
    private static final class Change {
        final int turn;
        final Path path;
        final State before;
        String after;

        Change(int turn, Path path, State before) {
            this.turn = turn;
            this.path = path;
            this.before = before;
        }
    }

    private final CheckpointStore store; // null: none kept
    private final String unavailable;
    private final Consumer<String> notice;
    private final Path cwd;
    private int turn;
    private String prompt = "";
    private List<Change> changes; // null until loaded
    private final Map<Integer, String> prompts = new LinkedHashMap<>();
    private final TreeSet<Integer> undone = new TreeSet<>();
    private boolean failureTold;

    private Checkpoints(CheckpointStore store, String unavailable, Path cwd, int turns, Consumer<String> notice) {
        this.store = store;
        this.unavailable = unavailable;
        this.cwd = cwd;
        this.turn = turns;
        this.notice = notice;
    }

    /** The checkpoints of a session kept in {@code dir} (empty: the session store keeps none); {@code turns} so far. */
    static Checkpoints open(Optional<Path> dir, Path cwd, int turns, Consumer<String> notice) {
        return new Checkpoints(dir.map(CheckpointStore::new).orElse(null),
                "the session store keeps no checkpoints", cwd, turns, notice);
    }

    /** A session whose checkpoints are not kept, e.g. one that is not open yet. */
    static Checkpoints none() {
        return new Checkpoints(null, "the session is not open", null, 0, t -> { });
    }

    /** A new prompt turn starts: later changes belong to it. */
    synchronized void turnStarted(List<ContentBlock> promptBlocks) {
        turn++;
        String text = promptBlocks.stream().filter(b -> b instanceof ContentBlock.Text).map(b -> ((ContentBlock.Text) b).text())
                .findFirst().orElse("").strip().replaceAll("\\s+", " ");
        prompt = text.length() > PROMPT_CHARS ? text.substring(0, PROMPT_CHARS - 1) + "…" : text;
    }

    /** The session caught up with turns another instance ran: {@code turns} prompts so far. */
    synchronized void turnsSoFar(int turns) {
        turn = Math.max(turn, turns);
        changes = null; // another instance on this machine may have added to the log: read it again when needed
        prompts.clear();
        undone.clear();
    }

    /** {@code files}, recording each write in the current turn's checkpoint first. */
    FileAccess guard(FileAccess files) {
        if (store == null) return files;
        return new FileAccess() {
            @Override
            public String readText(Path path, Integer line, Integer limit) throws IOException {
                return files.readText(path, line, limit);
            }

            @Override
            public void writeText(Path path, String content) throws IOException {
                // one write at a time (a turn's subagents run at once and share this checkpoint): the hash kept is that
                // of what the file holds, not of an earlier write to it whose answer came back later
                synchronized (Checkpoints.this) {
                    before(files, path);
                    files.writeText(path, content);
                    after(path, content);
                }
            }
        };
    }

    private synchronized void before(FileAccess files, Path path) {
        Path p = path.toAbsolutePath().normalize();
        try {
            load();
            if (find(turn, p) != null) return; // this turn's checkpoint has it already
            State before = read(files, p, true);
            if (before.tooLarge() >= 0) {
                notice.accept("The checkpoint of this turn does not keep " + display(p) + " (" + before.tooLarge()
                        + " bytes, over the limit of " + MAX_FILE_BYTES + "): /undo cannot bring back its content.");
            }
            if (!prompts.containsKey(turn)) {
                store.append(Json.object().put("t", "turn").put("turn", turn).put("prompt", prompt));
                prompts.put(turn, prompt);
            }
            ObjectNode line = Json.object().put("t", "before").put("turn", turn).put("path", p.toString());
            if (before.hash() != null) line.put("hash", before.hash()).put("text", before.text());
            if (before.tooLarge() >= 0) line.put("tooLarge", before.tooLarge());
            store.append(line);
            changes.add(new Change(turn, p, before));
        } catch (IOException | RuntimeException e) {
            failed(p, e);
        }
    }

    private synchronized void after(Path path, String content) {
        Path p = path.toAbsolutePath().normalize();
        Change c = find(turn, p);
        if (c == null) return; // its checkpoint failed (and said so)
        try {
            c.after = CheckpointStore.hash(content.getBytes(StandardCharsets.UTF_8));
            store.append(Json.object().put("t", "after").put("turn", turn).put("path", p.toString()).put("hash", c.after));
        } catch (IOException | RuntimeException e) {
            failed(p, e);
        }
    }

    private void failed(Path p, Exception e) {
        log.warn("cannot checkpoint {} in {}: {}", p, store.directory(), e.toString());
        if (!failureTold) {
            failureTold = true;
            notice.accept("Cannot keep a checkpoint of " + display(p) + " (" + describe(e) + "): /undo may not take back this turn's changes.");
        }
    }

    /** Takes back the last turn that changed files and was not taken back yet; returns what was done, for the user. */
    synchronized Result undo(FileAccess files) {
        if (store == null) return Result.nothing("There are no checkpoints to go back to: " + unavailable + ".");
        try {
            load();
        } catch (IOException e) {
            return Result.nothing("Cannot read the checkpoints: " + describe(e) + ".");
        }
        Integer last = null;
        for (Change c : changes) if (!undone.contains(c.turn) && (last == null || c.turn > last)) last = c.turn;
        if (last == null) return Result.nothing("Nothing to undo: no turn left changes made with write_file or edit to take back.");
        return takeBack(files, last, "/undo", "Undid turn " + last + describePrompt(last));
    }

    /** Takes back every turn from {@code from} on (the state before turn {@code from}). */
    synchronized Result rewind(FileAccess files, int from) {
        if (store == null) return Result.nothing("There are no checkpoints to go back to: " + unavailable + ".");
        if (from < 1 || from > turn) {
            return Result.nothing("There is no turn " + from + (turn == 0 ? "" : ": give a number from 1 to " + turn) + ".");
        }
        try {
            load();
        } catch (IOException e) {
            return Result.nothing("Cannot read the checkpoints: " + describe(e) + ".");
        }
        if (changes.stream().noneMatch(c -> c.turn >= from && !undone.contains(c.turn))) {
            return Result.nothing("Nothing to take back: no turn from turn " + from + " on left changes made with write_file or edit.");
        }
        return takeBack(files, from, "/rewind " + from, "Rewound to before turn " + from + describePrompt(from));
    }

    /** The turns whose changes can be taken back, newest last, for {@code /rewind} without a number. */
    synchronized String list() {
        if (store == null) return "There are no checkpoints: " + unavailable + ".";
        try {
            load();
        } catch (IOException e) {
            return "Cannot read the checkpoints: " + describe(e) + ".";
        }
        Map<Integer, List<String>> byTurn = new LinkedHashMap<>();
        for (Change c : changes) {
            if (!undone.contains(c.turn)) byTurn.computeIfAbsent(c.turn, k -> new ArrayList<>()).add("`" + display(c.path) + "`");
        }
        if (byTurn.isEmpty()) return "No turn left changes made with write_file or edit to take back.";
        StringBuilder sb = new StringBuilder("Turns that changed files (`/rewind N` goes back to before turn N):\n");
        byTurn.forEach((t, paths) -> sb.append("- turn ").append(t).append(describePrompt(t)).append(": ")
                .append(String.join(", ", paths)).append('\n'));
        return sb.toString();
    }

    /** What an undo or rewind did: the text for the user, and the note for the model (null when nothing changed). */
    record Result(String text, String note) {
        static Result nothing(String text) { return new Result(text, null); }
    }

    private Result takeBack(FileAccess files, int from, String command, String heading) {
        Map<Path, List<Change>> byPath = new LinkedHashMap<>();
        TreeSet<Integer> turns = new TreeSet<>();
        for (Change c : changes) {
            if (c.turn >= from && !undone.contains(c.turn)) {
                byPath.computeIfAbsent(c.path, k -> new ArrayList<>()).add(c);
                turns.add(c.turn);
            }
        }
        List<String> restored = new ArrayList<>(), deleted = new ArrayList<>(), skipped = new ArrayList<>(), failed = new ArrayList<>();
        for (var e : byPath.entrySet()) {
            Path p = e.getKey();
            Change first = e.getValue().getFirst();
            String wrote = null;
            for (Change c : e.getValue()) if (c.after != null) wrote = c.after;
            if (wrote == null) continue; // recorded, but the write itself failed: nothing to take back
            String name = "`" + display(p) + "`";
            try {
                State now = read(files, p, false);
                if (!wrote.equals(now.hash())) {
                    skipped.add(name + " (changed since the agent wrote it; left as it is)");
                } else if (first.before.tooLarge() >= 0) {
                    failed.add(name + " (its earlier content was over the size limit, so it was not kept)");
                } else if (first.before.absent()) {
                    Path target = Files.isSymbolicLink(p) ? p.toRealPath() : p;
                    Files.deleteIfExists(target);
                    deleted.add(name);
                } else {
                    byte[] content = store.get(first.before.hash());
                    if (first.before.text()) files.writeText(p, new String(content, StandardCharsets.UTF_8));
                    else Files.write(p, content);
                    restored.add(name);
                }
            } catch (IOException | RuntimeException ex) {
                failed.add(name + " (" + describe(ex) + ")");
            }
        }
        try {
            ObjectNode line = Json.object().put("t", "undone");
            turns.forEach(line.putArray("turns")::add);
            store.append(line);
        } catch (IOException ex) {
            log.warn("cannot record the undo in {}: {}", store.directory(), ex.toString());
        }
        undone.addAll(turns);
        StringBuilder sb = new StringBuilder(heading).append(turns.size() > 1 ? " (turns " + turns.first() + " to " + turns.last() + ")" : "")
                .append(".\n");
        if (!restored.isEmpty()) sb.append("- Restored: ").append(String.join(", ", restored)).append('\n');
        if (!deleted.isEmpty()) sb.append("- Deleted (the agent had created them): ").append(String.join(", ", deleted)).append('\n');
        if (!skipped.isEmpty()) sb.append("- Skipped: ").append(String.join(", ", skipped)).append('\n');
        if (!failed.isEmpty()) sb.append("- Not restored: ").append(String.join(", ", failed)).append('\n');
        if (restored.isEmpty() && deleted.isEmpty() && skipped.isEmpty() && failed.isEmpty()) sb.append("No file needed changing.\n");
        String text = sb.toString();
        String note = "[The user took back file changes with " + command + ". " + text.strip().replace('\n', ' ') + " The files named as restored or deleted no longer hold what those turns "
                + "wrote; read them again before relying on their content.]";
        return new Result(text, note);
    }

    /**
     * The file as the agent's file access sees it now (the editor's buffer in ACP, when the editor reads files);
     * {@code keep}: its content goes to the store.
     */
    private State read(FileAccess files, Path p, boolean keep) throws IOException {
        boolean onDisk = Files.exists(p);
        // a file that is not on disk did not exist: the editor is not asked (a new file's write needs no round trip,
        // and a client that never answers reads of missing files cannot hold the write up)
        if (!onDisk) return State.ABSENT;
        long size = Files.size(p);
        if (keep && size > MAX_FILE_BYTES) return new State(null, false, size);
        byte[] bytes;
        boolean text;
        try {
            bytes = files.readText(p, null, null).getBytes(StandardCharsets.UTF_8);
            text = true;
        } catch (IOException e) { // binary, not UTF-8, too big for a whole read: its bytes on disk
            if (size > MAX_FILE_BYTES) return new State(null, false, size);
            bytes = Files.readAllBytes(p);
            text = isUtf8(bytes);
        }
        return new State(keep ? store.put(bytes) : CheckpointStore.hash(bytes), text, -1);
    }

    private static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private Change find(int t, Path p) {
        if (changes == null) return null;
        for (int i = changes.size() - 1; i >= 0 && changes.get(i).turn >= t; i--) {
            if (changes.get(i).turn == t && changes.get(i).path.equals(p)) return changes.get(i);
        }
        return null;
    }

    /** Reads the log once. */
    private void load() throws IOException {
        if (changes != null) return;
        List<Change> loaded = new ArrayList<>();
        for (ObjectNode line : store.read()) {
            int t = line.path("turn").asInt();
            switch (line.path("t").asText()) {
                case "turn" -> prompts.put(t, line.path("prompt").asText(""));
                case "before" -> {
                    State s = line.hasNonNull("tooLarge") ? new State(null, false, line.path("tooLarge").asLong())
                            : line.hasNonNull("hash") ? new State(line.path("hash").asText(), line.path("text").asBoolean(), -1)
                            : State.ABSENT;
                    loaded.add(new Change(t, Path.of(line.path("path").asText()), s));
                }
                case "after" -> {
                    Path p = Path.of(line.path("path").asText());
                    for (int i = loaded.size() - 1; i >= 0; i--) {
                        if (loaded.get(i).turn == t && loaded.get(i).path.equals(p)) {
                            loaded.get(i).after = line.path("hash").asText();
                            break;
                        }
                    }
                }
                case "undone" -> line.path("turns").forEach(n -> undone.add(n.asInt()));
                default -> { /* a newer agent's line */ }
            }
            turn = Math.max(turn, t);
        }
        changes = loaded;
    }

    private String describePrompt(int t) {
        String p = prompts.get(t);
        return p == null || p.isEmpty() ? "" : " (“" + p + "”)";
    }

    private String display(Path p) {
        if (cwd != null && p.startsWith(cwd)) return cwd.relativize(p).toString();
        return p.toString();
    }

    private static String describe(Exception e) {
        return e instanceof IOException io ? IoErrors.describe(io) : e.toString();
    }
}
