package cn.agentao.agent.permission;

import cn.agentao.agent.permission.GnuOptions.Parsed;
import cn.agentao.agent.permission.ShellCommandLine.Redirect;
import cn.agentao.agent.permission.ShellCommandLine.SimpleCommand;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The paths a command line names, judged against the workspace boundary as the shell and the commands would
 * resolve them:
 * <ul>
 *   <li>every argument and redirection target; the value of {@code --opt=VALUE}, {@code NAME=VALUE} and
 *       {@code @FILE}; every
 *       tail of a short option cluster ({@code -o/elsewhere/FILE}, {@code -uoFILE}, {@code -f/x}), since a stuck
 *       value may start anywhere in it;</li>
 *   <li>globs and brace expansions expanded against the file system, match by match, each match resolved
 *       through its symbolic links ({@code cat lin*}, {@code cat *}{@code /secret.txt});</li>
 *   <li>for commands that follow symbolic links while recursing ({@code grep -R}, {@code rg -L},
 *       {@code find -L}, {@code diff -r}, {@code du -L}, {@code ls -RL}, {@code tree -l}) every link in the trees
 *       they read.</li>
 * </ul>
 * Computed values ({@code $X}) are not judged. A glob or tree too large to look through counts as outside.
 */
final class CommandPaths {
    private CommandPaths() {}

    /** Past this many directory entries a glob or a tree is not looked through and counts as outside. */
    static final int MAX_ENTRIES = 50_000;
    private static final int MAX_BRACE_WORDS = 256;

    /**
     * The first path argument or redirection target of the commands that lies outside the workspace, or that
     * could (a glob that may match {@code ..}, {@code ~user}, a followed link leaving the tree).
     */
    static Optional<String> firstOutside(List<SimpleCommand> commands, Path cwd, Workspace ws) {
        for (SimpleCommand c : commands) {
            List<String> words = c.words();
            for (int i = 1; i < words.size(); i++) {
                String a = words.get(i);
                if (a.equals("{}")) continue;
                for (String candidate : candidates(a)) {
                    if (isOutside(candidate, c.globbed().get(i), cwd, ws)) return Optional.of(a);
                }
            }
            for (Redirect r : c.redirects()) {
                String op = r.operator();
                if (op.contains("<<") || r.target().matches("\\d+|-")) continue;
                if (isOutside(r.target(), false, cwd, ws)) return Optional.of(r.target());
            }
            Optional<String> tree = linkLeavingTree(c, cwd, ws);
            if (tree.isPresent()) return tree;
        }
        return Optional.empty();
    }

    /** The strings of one word that may be paths: the word, an option's value, every tail of a short cluster. */
    private static List<String> candidates(String a) {
        List<String> out = new ArrayList<>();
        if (a.startsWith("--")) {
            int eq = a.indexOf('=');
            if (eq >= 0) out.add(a.substring(eq + 1));
        } else if (a.startsWith("-") && a.length() > 2) {
            for (int j = 2; j < a.length(); j++) out.add(a.substring(j));
        } else if (!a.startsWith("-")) {
            out.add(a);
            int eq = a.indexOf('=');
            if (eq > 0 && a.substring(0, eq).matches("[A-Za-z_][A-Za-z0-9_]*")) out.add(a.substring(eq + 1));
        }
        for (String c : List.copyOf(out)) if (c.startsWith("@") && c.length() > 1) out.add(c.substring(1)); // @FILE
        return out;
    }

    static boolean isOutside(String arg, boolean globbed, Path cwd, Workspace ws) {
        if (arg.isEmpty() || arg.contains("$") || arg.contains("`")) return false;
        if (arg.startsWith("/dev/") && !arg.contains("..") && !CommandBlocklist.isDevice(arg)) return false;
        if (arg.startsWith("~") && !arg.equals("~") && !arg.startsWith("~/")) return true; // ~user
        if (!globbed) return !ws.contains(Workspace.absolutize(cwd, ws.home(), arg));
        List<String> words = expandBraces(arg);
        if (words == null) return true;
        for (String w : words) {
            if (!Glob.hasWildcards(w)) {
                if (!ws.contains(Workspace.absolutize(cwd, ws.home(), w))) return true;
                continue;
            }
            List<Path> matches = globMatches(w, cwd, ws.home());
            if (matches == null) return true;
            if (!allInside(matches, ws)) return true;
        }
        return false;
    }

    /**
     * The paths a glob matches, following symbolic links as the shell does (null when a segment could match
     * {@code .} or {@code ..}, or there are too many entries to look through); the literal directory it is
     * anchored at when nothing matches (the shell then passes the word on unchanged).
     */
    static List<Path> globMatches(String glob, Path cwd, Path home) {
        String[] parts = glob.split("/", -1);
        Path start;
        int first = 0;
        if (glob.startsWith("/")) {
            start = Path.of("/");
            first = 1;
        } else if (parts[0].equals("~")) {
            start = home;
            first = 1;
        } else {
            start = cwd;
        }
        List<Path> current = List.of(start);
        int seen = 0;
        for (int i = first; i < parts.length; i++) {
            String part = parts[i];
            if (part.isEmpty()) continue;
            List<Path> next = new ArrayList<>();
            if (!Glob.hasWildcards(part)) {
                for (Path p : current) next.add(p.resolve(part));
            } else {
                // a leading dot must be matched literally, so only such a segment can match . or .. (older bash)
                if (part.startsWith("[") || part.contains("..") || part.startsWith(".") && matchesDots(part)) return null;
                Pattern pattern = Glob.path(part);
                for (Path dir : current) {
                    if (!Files.isDirectory(dir)) continue;
                    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                        for (Path e : entries) {
                            if (++seen > MAX_ENTRIES) return null;
                            if (pattern.matcher(e.getFileName().toString()).matches()) next.add(e);
                        }
                    } catch (IOException | RuntimeException e) {
                        return null;
                    }
                }
            }
            if (next.isEmpty()) return List.of(literalBase(glob, cwd, home));
            current = next;
        }
        return current;
    }

    /** Whether every path lies inside once resolved; a directory's real path is found once for all its entries. */
    private static boolean allInside(List<Path> paths, Workspace ws) {
        Map<Path, Path> realDirs = new HashMap<>();
        for (Path m : paths) {
            Path parent = m.getParent();
            Path name = m.getFileName();
            if (parent == null || name == null || Files.isSymbolicLink(m) || name.toString().equals("..")) {
                if (!ws.contains(m)) return false;
                continue;
            }
            Path realParent = realDirs.computeIfAbsent(parent, d -> Workspace.realPath(d).orElse(null));
            if (realParent == null || !ws.containsReal(realParent.resolve(name))) return false;
        }
        return true;
    }

    private static boolean matchesDots(String part) {
        Pattern p = Glob.path(part);
        return p.matcher(".").matches() || p.matcher("..").matches();
    }

    /** The literal directory before a glob's first wildcard segment. */
    private static Path literalBase(String glob, Path cwd, Path home) {
        StringBuilder literal = new StringBuilder();
        String[] parts = glob.split("/", -1);
        for (int i = 0; i < parts.length && !Glob.hasWildcards(parts[i]); i++) {
            if (i > 0) literal.append('/');
            literal.append(parts[i]);
        }
        String base = literal.isEmpty() ? (glob.startsWith("/") ? "/" : ".") : literal.toString();
        return Workspace.absolutize(cwd, home, base);
    }

    /** Bash brace expansion of comma lists ({@code a{b,c}d}); null when it would give too many words. */
    static List<String> expandBraces(String word) {
        List<String> out = new ArrayList<>();
        Deque<String> todo = new ArrayDeque<>(List.of(word));
        while (!todo.isEmpty()) {
            String w = todo.pop();
            int[] brace = commaBrace(w);
            if (brace == null) {
                out.add(w);
            } else {
                String pre = w.substring(0, brace[0]);
                String post = w.substring(brace[1] + 1);
                for (String alt : splitTopLevel(w.substring(brace[0] + 1, brace[1]))) todo.push(pre + alt + post);
            }
            if (out.size() + todo.size() > MAX_BRACE_WORDS) return null;
        }
        return out;
    }

    /** The first {@code {...}} holding a top-level comma: {open, close}, or null. */
    private static int[] commaBrace(String w) {
        for (int open = w.indexOf('{'); open >= 0; open = w.indexOf('{', open + 1)) {
            int depth = 0;
            boolean comma = false;
            for (int i = open; i < w.length(); i++) {
                char ch = w.charAt(i);
                if (ch == '{') depth++;
                else if (ch == '}' && --depth == 0) {
                    if (comma) return new int[]{open, i};
                    break;
                } else if (ch == ',' && depth == 1) comma = true;
            }
        }
        return null;
    }

    private static List<String> splitTopLevel(String inner) {
        List<String> parts = new ArrayList<>();
        int depth = 0, from = 0;
        for (int i = 0; i < inner.length(); i++) {
            char ch = inner.charAt(i);
            if (ch == '{') depth++;
            else if (ch == '}') depth--;
            else if (ch == ',' && depth == 0) {
                parts.add(inner.substring(from, i));
                from = i + 1;
            }
        }
        parts.add(inner.substring(from));
        return parts;
    }

    // ---- recursive reads that follow symbolic links ----

    /** For a command that follows links while recursing, the first of its trees holding a link that leaves. */
    private static Optional<String> linkLeavingTree(SimpleCommand c, Path cwd, Workspace ws) {
        List<String> roots = followedTrees(c);
        for (String root : roots) {
            if (root.contains("$") || root.contains("`")) continue;
            Path start = Workspace.absolutize(cwd, ws.home(), root);
            if (!Files.isDirectory(start)) continue;
            if (!treeStaysInside(start, ws)) return Optional.of(root + " (a symbolic link in it leads outside)");
        }
        return Optional.empty();
    }

    /** The trees a command reads recursively while following symbolic links; empty when it does not. */
    static List<String> followedTrees(SimpleCommand c) {
        String prog = c.program();
        List<String> args = c.args();
        if (prog.equals("find")) {
            if (!args.contains("-L") && !args.contains("-follow")) return List.of();
            List<String> starts = new ArrayList<>();
            for (String a : args) {
                if (a.matches("-[HLP]|-D|-O\\d*")) continue;
                if (a.startsWith("-") || a.startsWith("(") || a.startsWith("!")) break;
                starts.add(a);
            }
            return starts.isEmpty() ? List.of(".") : starts;
        }
        Parsed p = GnuOptions.parse(args, ReadOnlyCommands.spec(prog));
        boolean follows = switch (prog) {
            case "grep", "egrep", "fgrep" -> p.has("-R", "--dereference-recursive");
            case "rg" -> p.has("-L", "--follow");
            case "ls" -> p.has("-R", "--recursive") && p.has("-L", "--dereference");
            case "du" -> p.has("-L", "--dereference");
            case "diff" -> p.has("-r", "-R", "--recursive") && !p.has("--no-dereference");
            case "tree" -> p.has("-l");
            default -> false;
        };
        if (!follows) return List.of();
        List<String> operands = new ArrayList<>(p.operands());
        if (prog.endsWith("grep") && !operands.isEmpty() && !p.has("-e", "--regexp", "-f", "--file")) {
            operands.remove(0); // the pattern
        }
        if (prog.equals("rg") && !operands.isEmpty() && !p.has("-e", "--regexp", "-f", "--file")) operands.remove(0);
        return operands.isEmpty() ? List.of(".") : operands;
    }

    /** Whether every symbolic link under {@code start} (followed, as the command would) stays inside. */
    static boolean treeStaysInside(Path start, Workspace ws) {
        Path startReal = Workspace.realPath(start).orElse(null);
        if (startReal == null || !ws.containsReal(startReal)) return false;
        Deque<Path> dirs = new ArrayDeque<>(List.of(startReal));
        Set<Path> visited = new HashSet<>();
        int seen = 0;
        while (!dirs.isEmpty()) {
            Path dir = dirs.pop(); // a real path: links are resolved before they are pushed
            if (!visited.add(dir)) continue;
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                for (Path e : entries) {
                    if (++seen > MAX_ENTRIES) return false;
                    BasicFileAttributes a = Files.readAttributes(e, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    if (a.isSymbolicLink()) {
                        Path target = Workspace.realPath(e).orElse(null);
                        if (target == null || !ws.containsReal(target)) return false;
                        if (Files.isDirectory(target)) dirs.push(target);
                    } else if (a.isDirectory()) {
                        dirs.push(e);
                    }
                }
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }
        return true;
    }
}
