package cn.agentao.agent.sandbox;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a command in workspace-write may leave behind for the user's next git command: a hook, or a config key that
 * makes git run a program ({@code core.fsmonitor}, {@code core.hooksPath}, a filter, an alias, a pager…), in a git
 * directory of the workspace that is not read-only to it (one it created with {@code git init}, or a copy it put in
 * place of a nested repository with {@code mv lib lib.orig && cp -a lib.orig lib}). {@link #before} notes the git
 * directories of the roots (the bounded walk of {@link NestedRepositories}, so the same ones) with their hooks and
 * config; {@link #after}, once the command and all it started have ended (the sandbox's pid namespace), looks again
 * and disarms whatever is new or changed: a hook is renamed {@code NAME.disabled-by-agent} and loses its execute
 * bits, a config key is removed (the rest of the file is kept). Each root's own {@code .git} is read-only to
 * commands and is not looked at (changes there are the user's).
 */
public final class PlantedGitCode {
    private static final Logger log = LoggerFactory.getLogger(PlantedGitCode.class);
    /** What a disarmed hook's name gets. */
    public static final String DISABLED = ".disabled-by-agent";
    /** Hooks and config files larger than this are compared by size and time only (git hooks are small). */
    private static final long MAX_HASHED = 1 << 20;
    /** A config file larger than this is set aside whole when a command changed it. */
    private static final long MAX_CONFIG = 16 << 20;
    /** The config files of a git directory that git reads. */
    private static final List<String> CONFIGS = List.of("config", "config.worktree");

    /**
     * Config keys (lower case, {@code section[.subsection].key}) whose value git runs, or which choose what it runs
     * or reads as configuration.
     */
    private static final Pattern RUNS = Pattern.compile(String.join("|",
            "alias\\..*", "pager\\..*",
            "core\\.(hookspath|fsmonitor|sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand)",
            "sequence\\.editor", "diff\\.external", "gpg\\.(.+\\.)?program", "gpg\\.ssh\\.defaultkeycommand",
            "credential\\.(.+\\.)?helper", "include\\.path", "includeif\\..+\\.path", "uploadpack\\.packobjectshook",
            "interactive\\.difffilter", "web\\.browser", "sendemail\\.(.+\\.)?(sendmailcmd|smtpserver)",
            "filter\\..+\\.(clean|smudge|process)", "diff\\..+\\.(textconv|command)", "merge\\..+\\.driver",
            "(difftool|mergetool|browser|man)\\..+\\.(cmd|path)", "remote\\..+\\.(uploadpack|receivepack|vcs)",
            "protocol\\.(.+\\.)?allow", "submodule\\..+\\.update", "trailer\\..+\\.(command|cmd)"));

    private final List<Path> roots;
    private final Path cwd;
    /** The git directories seen before: looked at again even if the walk does not reach them after. */
    private final Set<Path> known;
    /** Hook directory → its entries' fingerprints ({@code "link:…"} under the name "" when it is a link). */
    private final Map<Path, Map<String, String>> hooks;
    /** Config file → its bytes. */
    private final Map<Path, byte[]> configs;

    private PlantedGitCode(List<Path> roots, Path cwd, Set<Path> known, Map<Path, Map<String, String>> hooks, Map<Path, byte[]> configs) {
        this.roots = roots;
        this.cwd = cwd;
        this.known = known;
        this.hooks = hooks;
        this.configs = configs;
    }

    /** Notes the git directories of {@code roots} before a command runs in {@code cwd}. */
    public static PlantedGitCode before(List<Path> roots, Path cwd) {
        List<Path> real = roots.stream().map(PlantedGitCode::real).toList();
        Path dir = real(cwd);
        Map<Path, Map<String, String>> hooks = new HashMap<>();
        Map<Path, byte[]> configs = new HashMap<>();
        Set<Path> known = gitDirectories(real, dir);
        for (Path git : known) {
            for (String c : CONFIGS) {
                byte[] bytes = read(git.resolve(c), MAX_CONFIG);
                if (bytes != null) configs.put(git.resolve(c), bytes);
            }
            Path h = hookDirectory(git, real);
            hooks.put(h, fingerprints(h, real));
        }
        return new PlantedGitCode(real, dir, known, hooks, configs);
    }

    /**
     * Looks again and disarms what git would run that is new or changed since {@link #before}; returns one line
     * per thing disarmed (paths relative to their root), empty when there was nothing.
     */
    public List<String> after() {
        List<String> done = new ArrayList<>();
        Set<Path> dirs = gitDirectories(roots, cwd);
        for (Path g : known) if (isGitDirectory(g) && inside(g, roots)) dirs.add(g); // however many entries came first
        for (Path git : dirs) {
            for (String c : CONFIGS) cleanConfig(git.resolve(c), done);
            Path h = hookDirectory(git, roots);
            Map<String, String> was = hooks.getOrDefault(h, Map.of());
            Map<String, String> now = fingerprints(h, roots);
            if (now.containsKey("") && !now.get("").equals(was.get(""))) { // a hook directory linked elsewhere: set aside
                disarm(h, done);
                continue;
            }
            for (Map.Entry<String, String> e : now.entrySet()) {
                if (!e.getValue().equals(was.get(e.getKey()))) disarm(h.resolve(e.getKey()), done);
            }
        }
        return done;
    }

    /** The words for the model and the user when {@link #after} disarmed something. */
    public static String describe(List<String> disarmed) {
        return "[The command left things in git directories of the workspace that git would run on your next git "
                + "command there; they were disarmed: " + String.join("; ", disarmed) + ". Rename a hook back, or set "
                + "the key again yourself, if you meant it.]";
    }

    // ---- git directories ----

    /**
     * The git directories of the roots that a command could have written: those of nested {@code .git} entries
     * (a directory, a link to one inside a root, a file naming one with {@code gitdir:}) and repositories under
     * another name at the top, as {@link NestedRepositories} finds them, with the {@code commondir} each names.
     */
    static Set<Path> gitDirectories(List<Path> roots, Path cwd) {
        Set<Path> out = new LinkedHashSet<>();
        for (Path root : roots) {
            Set<Path> found;
            try {
                found = NestedRepositories.in(root, cwd);
            } catch (IOException e) {
                log.debug("cannot search {} for git directories: {}", root, e.getMessage());
                continue;
            }
            for (Path p : found) {
                Path git = p.getFileName().toString().equalsIgnoreCase(".git") ? resolveDotGit(p) : isGitDirectory(p) ? p : null;
                if (git == null || !inside(git, roots) || git.equals(root.resolve(".git"))) continue;
                out.add(git);
                Path common = pointer(git.resolve("commondir"), git);
                if (common != null && inside(common, roots) && Files.isDirectory(common, LinkOption.NOFOLLOW_LINKS)) out.add(common);
            }
        }
        return out;
    }

    /** The git directory a {@code .git} entry stands for, or null. */
    private static Path resolveDotGit(Path dotGit) {
        if (Files.isSymbolicLink(dotGit)) return Files.isDirectory(dotGit) ? real(dotGit) : null;
        if (Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS)) return dotGit;
        Path target = pointer(dotGit, dotGit.getParent());
        return target != null && Files.isDirectory(target) ? real(target) : null;
    }

    /** The path a {@code gitdir: X} file or a {@code commondir} file names, relative to {@code base}; null if none. */
    private static Path pointer(Path file, Path base) {
        byte[] bytes = Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) ? read(file, 4096) : null;
        if (bytes == null) return null;
        String text = new String(bytes, StandardCharsets.UTF_8).strip();
        if (text.startsWith("gitdir:")) text = text.substring("gitdir:".length()).strip();
        if (text.isEmpty() || text.contains("\n")) return null;
        try {
            return base.resolve(text).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            return null;
        }
    }

    private static boolean isGitDirectory(Path p) {
        return Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) && Files.isRegularFile(p.resolve("HEAD"), LinkOption.NOFOLLOW_LINKS)
                && Files.isDirectory(p.resolve("objects"), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Where git looks for this repository's hooks: {@code core.hooksPath} when its config sets one inside a root
     * (relative to the working tree), else {@code hooks}.
     */
    private static Path hookDirectory(Path git, List<Path> roots) {
        byte[] bytes = read(git.resolve("config"), MAX_CONFIG);
        if (bytes != null) {
            String path = null;
            for (ConfigLine l : GitConfig.parse(new String(bytes, StandardCharsets.UTF_8))) {
                if ("core.hookspath".equals(l.key())) path = l.value();
            }
            if (path != null && !path.isBlank()) {
                try {
                    Path base = git.getFileName().toString().equalsIgnoreCase(".git") ? git.getParent() : git;
                    Path p = base.resolve(path).normalize();
                    if (inside(p, roots)) return p;
                } catch (java.nio.file.InvalidPathException e) {
                    // git cannot use it either
                }
            }
        }
        return git.resolve("hooks");
    }

    // ---- hooks ----

    /**
     * Name → "size:time:mode:sha256" of each entry of a hook directory that git could run (no {@code *.sample});
     * a directory that is a link is "" → its target, and its entries only when it stays inside a root (nothing
     * outside the workspace is ever renamed).
     */
    private static Map<String, String> fingerprints(Path dir, List<Path> roots) {
        Map<String, String> out = new LinkedHashMap<>();
        if (Files.isSymbolicLink(dir)) {
            try {
                out.put("", "link:" + Files.readSymbolicLink(dir));
            } catch (IOException e) {
                out.put("", "link:?");
            }
        }
        if (!Files.isDirectory(dir) || !inside(dir, roots)) return out;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path e : entries) {
                String name = e.getFileName().toString();
                if (name.endsWith(".sample") || name.contains(DISABLED)) continue;
                out.put(name, fingerprint(e));
            }
        } catch (IOException | DirectoryIteratorException e) {
            log.debug("cannot list {}: {}", dir, e.getMessage());
        }
        return out;
    }

    private static String fingerprint(Path p) {
        try {
            if (Files.isSymbolicLink(p)) return "link:" + Files.readSymbolicLink(p);
            var a = Files.readAttributes(p, java.nio.file.attribute.PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            String head = a.size() + ":" + a.lastModifiedTime().toMillis() + ":" + java.nio.file.attribute.PosixFilePermissions.toString(a.permissions());
            if (!a.isRegularFile() || a.size() > MAX_HASHED) return head + ":" + a.fileKey();
            return head + ":" + sha256(Files.readAllBytes(p));
        } catch (IOException | UnsupportedOperationException e) {
            return "unreadable";
        }
    }

    /** Renames a hook {@code NAME.disabled-by-agent} and takes away its execute bits. */
    private void disarm(Path hook, List<String> done) {
        try {
            Path target = moveAside(hook);
            if (!Files.isSymbolicLink(target)) {
                Set<PosixFilePermission> perms = new java.util.HashSet<>(Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS));
                perms.removeAll(Set.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_EXECUTE));
                Files.setPosixFilePermissions(target, perms);
            }
            done.add("hook " + shown(hook) + " renamed " + target.getFileName());
        } catch (IOException | UnsupportedOperationException e) {
            log.warn("could not disarm the hook {}: {}", hook, e.getMessage());
            done.add("hook " + shown(hook) + " could NOT be disarmed (" + e.getMessage() + "); remove it before using git there");
        }
    }

    /** Renames {@code p} (a link itself, not where it leads) {@code NAME.disabled-by-agent}, or {@code ….2}, … when taken. */
    static Path moveAside(Path p) throws IOException {
        String name = p.getFileName().toString();
        Path target = p.resolveSibling(name + DISABLED);
        for (int i = 2; Files.exists(target, LinkOption.NOFOLLOW_LINKS); i++) target = p.resolveSibling(name + DISABLED + "." + i);
        Files.move(p, target, StandardCopyOption.ATOMIC_MOVE);
        return target;
    }

    // ---- config ----

    /** Removes the keys that make git run something which are in {@code file} now and were not before. */
    private void cleanConfig(Path file, List<String> done) {
        if (Files.isSymbolicLink(file)) { // git follows it: a link is never what git init leaves
            byte[] was = configs.get(file);
            if (was == null) {
                try {
                    Path target = file.resolveSibling(file.getFileName() + DISABLED);
                    Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
                    done.add(shown(file) + " (a link) renamed " + target.getFileName());
                } catch (IOException e) {
                    done.add(shown(file) + " (a link) could NOT be disarmed (" + e.getMessage() + ")");
                }
            }
            return;
        }
        byte[] was = configs.get(file);
        byte[] now;
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) return;
            if (Files.size(file) > MAX_CONFIG) { // never what git writes: set aside whole
                Path target = file.resolveSibling(file.getFileName() + DISABLED);
                Files.move(file, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                done.add(shown(file) + " (over " + (MAX_CONFIG >> 20) + " MB) renamed " + target.getFileName());
                return;
            }
            now = Files.readAllBytes(file);
        } catch (IOException e) {
            done.add(shown(file) + " could NOT be checked (" + e.getMessage() + "); check it before using git there");
            return;
        }
        if (java.util.Arrays.equals(now, was)) return;
        String text = new String(now, StandardCharsets.UTF_8);
        Map<String, Integer> before = new HashMap<>();
        if (was != null) {
            for (ConfigLine l : GitConfig.parse(new String(was, StandardCharsets.UTF_8))) before.merge(l.identity(), 1, Integer::sum);
        }
        List<ConfigLine> drop = new ArrayList<>();
        for (ConfigLine l : GitConfig.parse(text)) {
            boolean dangerous = l.key() == null || RUNS.matcher(l.key()).matches();
            if (!dangerous) continue;
            if (before.merge(l.identity(), -1, Integer::sum) >= 0) continue; // there before, as it is
            drop.add(l);
        }
        if (drop.isEmpty()) return;
        try {
            byte[] cleaned = GitConfig.without(text, drop).getBytes(StandardCharsets.UTF_8);
            Path tmp = file.resolveSibling(file.getFileName() + ".agent-tmp");
            Files.write(tmp, cleaned);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            configs.put(file, cleaned);
            for (ConfigLine l : drop) {
                done.add(shown(file) + ": " + (l.key() == null ? "a line git may read as a key (" + l.text().strip() + ")" : l.key()) + " removed");
            }
        } catch (IOException e) {
            log.warn("could not clean {}: {}", file, e.getMessage());
            done.add(shown(file) + " could NOT be cleaned (" + e.getMessage() + "); check it before using git there");
        }
    }

    /**
     * One key of a git config file: its lines {@code [from, to)}, lower-case name (null: a line not understood),
     * value, first line, and whether it follows a section header on that line ({@code [core] editor = x}).
     */
    record ConfigLine(int from, int to, String key, String value, String text, boolean afterHeader) {
        String identity() { return key == null ? "?" + text : key + "=" + value; }
    }

    /** Just enough of git's config syntax to find each key and its lines. */
    static final class GitConfig {
        private GitConfig() {}

        static List<ConfigLine> parse(String text) {
            List<String> lines = text.lines().toList();
            List<ConfigLine> out = new ArrayList<>();
            String section = null;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                String s = line.strip();
                if (s.isEmpty() || s.startsWith("#") || s.startsWith(";")) continue;
                boolean afterHeader = false;
                if (s.startsWith("[")) {
                    int close = closing(s);
                    if (close < 0) {
                        out.add(new ConfigLine(i, i + 1, null, null, line, false));
                        section = null;
                        continue;
                    }
                    section = sectionName(s.substring(1, close));
                    s = s.substring(close + 1).strip();
                    if (s.isEmpty() || s.startsWith("#") || s.startsWith(";")) continue;
                    afterHeader = true;
                }
                int eq = s.indexOf('=');
                String name = (eq < 0 ? s : s.substring(0, eq)).strip();
                StringBuilder value = new StringBuilder(eq < 0 ? "" : s.substring(eq + 1));
                int end = i + 1;
                while (continues(value.toString()) && end < lines.size()) {
                    value.setLength(value.length() - 1);
                    value.append('\n').append(lines.get(end));
                    end++;
                }
                boolean valid = section != null && name.matches("[A-Za-z][A-Za-z0-9-]*");
                out.add(new ConfigLine(i, end, valid ? (section + "." + name).toLowerCase(Locale.ROOT) : null,
                        value.toString().strip(), line, afterHeader));
                i = end - 1;
            }
            return out;
        }

        /** The text without the lines of {@code drop}; a key after a section header keeps the header. */
        static String without(String text, List<ConfigLine> drop) {
            List<String> lines = new ArrayList<>(text.lines().toList());
            for (ConfigLine l : drop.reversed()) {
                String first = lines.get(l.from());
                for (int k = l.to() - 1; k >= l.from(); k--) lines.remove(k);
                if (l.afterHeader()) {
                    String s = first.strip();
                    lines.add(l.from(), s.substring(0, closing(s) + 1));
                }
            }
            return String.join("\n", lines) + "\n";
        }

        /** The index of the {@code ]} that closes a section header (quotes in a subsection honoured), or -1. */
        private static int closing(String s) {
            boolean quote = false;
            for (int i = 1; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '\\' && quote) i++;
                else if (c == '"') quote = !quote;
                else if (c == ']' && !quote) return i;
            }
            return -1;
        }

        /** {@code core}, {@code remote "origin"} → {@code remote.origin}, {@code branch.main} (old form). */
        private static String sectionName(String header) {
            String h = header.strip();
            int q = h.indexOf('"');
            if (q < 0) return h;
            String sub = h.substring(q + 1, h.lastIndexOf('"') > q ? h.lastIndexOf('"') : h.length())
                    .replace("\\\"", "\"").replace("\\\\", "\\");
            return h.substring(0, q).strip() + "." + sub;
        }

        /** Whether a value goes on to the next line: an unescaped backslash at its end, outside a comment. */
        private static boolean continues(String value) {
            boolean quote = false;
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '\\') {
                    if (i == value.length() - 1) return true;
                    i++;
                } else if (c == '"') {
                    quote = !quote;
                } else if (!quote && (c == '#' || c == ';')) {
                    return false;
                }
            }
            return false;
        }
    }

    // ---- helpers ----

    private String shown(Path p) {
        for (Path r : roots) if (p.startsWith(r)) return r.relativize(p).toString();
        return p.toString();
    }

    private static boolean inside(Path p, List<Path> roots) {
        Path n = p.toAbsolutePath().normalize();
        Path r = Files.exists(n) ? real(n) : n;
        return roots.stream().anyMatch(root -> r.startsWith(root) && n.startsWith(root));
    }

    private static byte[] read(Path file, long max) {
        try {
            if (!Files.isRegularFile(file) || Files.size(file) > max) return null;
            return Files.readAllBytes(file);
        } catch (IOException e) {
            return null;
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }
}
