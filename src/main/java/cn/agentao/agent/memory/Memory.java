package cn.agentao.agent.memory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * What the agent remembers across sessions: short facts, one Markdown list item a line, in two files the user may
 * edit by hand. The user's memory is {@code <config dir>/memory.md}; a project's is
 * {@code <config dir>/projects/<name>-<hash of its path>/memory.md}, kept outside the workspace on purpose: a
 * cloned project cannot bring a "memory" with it, a sandboxed command cannot see or change it, and it is never
 * committed with the project. Both are read afresh for every turn; only sessions of this machine's user (an editor,
 * the terminal) see or change them (see {@code core.host.Host.keepsMemory}).
 */
public final class Memory {
    /** A fact longer than this is refused: memory is for short facts. */
    public static final int MAX_FACT_CHARS = 500;
    /** At most this many lines of a file are kept, and shown in the prompt. */
    public static final int MAX_LINES = 200;
    /** At most this many characters of a file are kept, and shown in the prompt. */
    public static final int MAX_CHARS = 16 * 1024;

    /** Whose memory: the user's (every project) or the session's project's. */
    public enum Scope {
        USER("user"), PROJECT("project");

        private final String id;

        Scope(String id) { this.id = id; }

        public String id() { return id; }

        public static Scope of(String id) {
            for (Scope s : values()) if (s.id.equals(id)) return s;
            throw new IllegalArgumentException("scope must be user or project, not \"" + id + "\"");
        }
    }

    /** One remembered fact: its scope, its text, and where it is (its line in the file, from 0). */
    public record Entry(Scope scope, String text, int line) {}

    /** A change that could not be made, for the user or the model. */
    public static final class MemoryException extends Exception {
        public MemoryException(String message) { super(message); }
    }

    private final Path configDir;

    public Memory(Path configDir) {
        this.configDir = configDir;
    }

    /** The file of {@code scope} for a session in {@code project}. */
    public Path file(Scope scope, Path project) {
        if (scope == Scope.USER) return configDir.resolve("memory.md");
        Path p = project.toAbsolutePath().normalize();
        try {
            p = p.toRealPath();
        } catch (IOException e) {
            // not there (yet): keyed by the path as given
        }
        String name = p.getFileName() == null ? "root" : p.getFileName().toString().replaceAll("[^A-Za-z0-9._-]", "_");
        if (name.startsWith(".")) name = "_" + name.substring(1);
        if (name.length() > 40) name = name.substring(0, 40);
        return configDir.resolve("projects").resolve(name + "-" + hash(p.toString())).resolve("memory.md");
    }

    private static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The facts of both scopes (the user's first), each a list item ({@code - } or {@code * }) of its file. */
    public List<Entry> entries(Path project) {
        List<Entry> out = new ArrayList<>();
        for (Scope scope : Scope.values()) {
            List<String> lines = lines(file(scope, project));
            for (int i = 0; i < lines.size(); i++) {
                String t = lines.get(i).strip();
                if (t.startsWith("- ") || t.startsWith("* ")) out.add(new Entry(scope, t.substring(2).strip(), i));
            }
        }
        return out;
    }

    /**
     * Appends {@code fact} as one list item of the scope's file (created when missing) and returns the line added.
     * Refused: an empty or too long fact, control characters, a fact already there, a full file.
     */
    public synchronized String add(Scope scope, Path project, String fact) throws MemoryException {
        String text = fact == null ? "" : fact.strip();
        if (text.startsWith("- ") || text.startsWith("* ")) text = text.substring(2).strip();
        if (text.isEmpty()) throw new MemoryException("there is nothing to remember: the fact is empty");
        if (text.contains("\n") || text.contains("\r")) throw new MemoryException("a memory is one line; save each fact on its own");
        if (text.chars().anyMatch(c -> Character.isISOControl(c) && c != '\t')) {
            throw new MemoryException("a memory cannot contain control characters");
        }
        text = text.replaceAll("\\s+", " ");
        if (text.length() > MAX_FACT_CHARS) {
            throw new MemoryException("a memory is a short fact of at most " + MAX_FACT_CHARS + " characters (this one has "
                    + text.length() + ")");
        }
        Path f = file(scope, project);
        List<String> lines = lines(f);
        String lower = text.toLowerCase(Locale.ROOT);
        for (Entry e : entries(project)) {
            if (e.scope() == scope && e.text().toLowerCase(Locale.ROOT).equals(lower)) {
                throw new MemoryException("the " + scope.id() + " memory already has this fact");
            }
        }
        String line = "- " + text;
        int chars = lines.stream().mapToInt(l -> l.length() + 1).sum();
        if (lines.size() + 1 > MAX_LINES || chars + line.length() + 1 > MAX_CHARS) {
            throw new MemoryException("the " + scope.id() + " memory is full (" + MAX_LINES + " lines or "
                    + MAX_CHARS / 1024 + " KB); forget some facts (/memory forget) or edit " + f);
        }
        try {
            Files.createDirectories(f.getParent());
            String prefix = "";
            if (Files.exists(f)) {
                String old = Files.readString(f);
                if (!old.isEmpty() && !old.endsWith("\n")) prefix = "\n";
            }
            Files.writeString(f, prefix + line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new MemoryException("cannot write " + f + ": " + e.getMessage());
        }
        return line;
    }

    /** Removes {@code entry} (as {@link #entries} gave it) from its file; false when the file no longer has it there. */
    public synchronized boolean forget(Path project, Entry entry) throws MemoryException {
        Path f = file(entry.scope(), project);
        List<String> lines = new ArrayList<>(lines(f));
        if (entry.line() >= lines.size()) return false;
        String t = lines.get(entry.line()).strip();
        if (!(t.startsWith("- ") || t.startsWith("* ")) || !t.substring(2).strip().equals(entry.text())) return false;
        lines.remove(entry.line());
        try {
            Path tmp = Files.createTempFile(f.getParent(), ".memory", ".tmp");
            Files.writeString(tmp, lines.isEmpty() ? "" : String.join("\n", lines) + "\n");
            Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new MemoryException("cannot write " + f + ": " + e.getMessage());
        }
        return true;
    }

    /**
     * Both files as they are (the user's first), each within {@link #MAX_LINES} lines and {@link #MAX_CHARS}
     * characters, under a heading naming its scope; empty when neither has anything.
     */
    public String forPrompt(Path project) {
        StringBuilder sb = new StringBuilder();
        for (Scope scope : Scope.values()) {
            Path f = file(scope, project);
            List<String> kept = new ArrayList<>();
            int chars = 0;
            int i = 0;
            List<String> lines = lines(f);
            for (; i < lines.size(); i++) {
                String l = lines.get(i);
                if (kept.size() >= MAX_LINES || chars + l.length() + 1 > MAX_CHARS) break;
                kept.add(l);
                chars += l.length() + 1;
            }
            String body = String.join("\n", kept).strip();
            if (body.isEmpty()) continue;
            long left = lines.stream().skip(i).filter(l -> !l.isBlank()).count();
            sb.append("\n## ").append(scope == Scope.USER ? "User memory (every project)" : "Project memory (this workspace)")
                    .append("\n\n").append(body).append('\n');
            if (left > 0) sb.append("… (").append(left).append(" more lines not shown: the file is over its limit)\n");
        }
        return sb.toString();
    }

    /** The file's lines; none when it is missing or unreadable (a broken memory must not stop a session). */
    private static List<String> lines(Path f) {
        if (!Files.isRegularFile(f)) return List.of();
        try {
            return Files.readAllLines(f, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(Memory.class).warn("cannot read {}: {}", f, e.toString());
            return List.of();
        }
    }
}
