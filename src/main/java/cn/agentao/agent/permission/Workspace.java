package cn.agentao.agent.permission;

import cn.agentao.agent.util.UserHome;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The directories a session may change freely: its cwd plus any {@code additionalDirectories}.
 *
 * <p>Containment is decided on real paths: {@code ..} and every symbolic link are resolved first, also for a
 * path that does not exist yet (its existing ancestors are resolved, and a dangling link is followed to where
 * a write would land). A path whose links cannot be read, or that loops, is outside.
 */
public final class Workspace {
    private static final int MAX_LINKS = 40;

    private final Path cwd;
    private final List<Path> roots;
    private final List<Path> realRoots;
    private final Path home;

    /**
     * @param cwd   the session cwd (absolute)
     * @param extra additional roots (absolute)
     * @param home  the user's home directory, for {@code ~}
     */
    public Workspace(Path cwd, List<Path> extra, Path home) {
        Objects.requireNonNull(cwd, "cwd");
        if (!cwd.isAbsolute()) throw new IllegalArgumentException("workspace cwd must be absolute: " + cwd);
        this.cwd = cwd.normalize();
        this.home = home.toAbsolutePath().normalize();
        List<Path> all = new ArrayList<>();
        all.add(this.cwd);
        for (Path p : extra) {
            if (!p.isAbsolute()) throw new IllegalArgumentException("workspace root must be absolute: " + p);
            all.add(p.normalize());
        }
        this.roots = List.copyOf(all);
        this.realRoots = all.stream().map(Workspace::realPath).flatMap(Optional::stream).toList();
    }

    public static Workspace of(Path cwd, List<Path> extra) {
        return new Workspace(cwd, extra, UserHome.current());
    }

    public static Workspace of(Path cwd) {
        return of(cwd, List.of());
    }

    public Path cwd() { return cwd; }

    /** All roots, the cwd first, as given. */
    public List<Path> roots() { return roots; }

    public Path home() { return home; }

    /** Makes a path the model gave absolute: {@code ~} and {@code ~/x} are under home, relative is under the cwd. */
    public Path absolutize(String raw) {
        return absolutize(cwd, home, raw);
    }

    /** As {@link #absolutize(String)} relative to {@code base}. Does not resolve links; normalizes nothing. */
    public static Path absolutize(Path base, Path home, String raw) {
        if (raw.equals("~")) return home;
        if (raw.startsWith("~/")) return home.resolve(raw.substring(2));
        Path p = Path.of(raw);
        return p.isAbsolute() ? p : base.resolve(p);
    }

    /** As {@link #absolutize(Path, Path, String)} with the user's home ({@link UserHome}). */
    public static Path absolutize(Path base, String raw) {
        return absolutize(base, UserHome.current(), raw);
    }

    /** Whether {@code path} (relative ones are under the cwd) lies, once resolved, inside one of the roots. */
    public boolean contains(Path path) {
        Path abs = path.isAbsolute() ? path : absolutize(path.toString());
        return realPath(abs).map(this::containsReal).orElse(false);
    }

    /** Whether an already real path lies inside a root. */
    boolean containsReal(Path real) {
        for (Path root : realRoots) if (real.startsWith(root)) return true;
        return false;
    }

    /**
     * The path with {@code .}, {@code ..} and every symbolic link resolved, like {@code realpath -m}: components
     * that do not exist are kept as they are (after a dangling link has been followed). Empty when a link
     * cannot be read or links loop.
     */
    public static Optional<Path> realPath(Path path) {
        Path abs = path.toAbsolutePath();
        Path root = abs.getRoot();
        Deque<String> todo = new ArrayDeque<>();
        for (Path name : abs) todo.addLast(name.toString());
        Path result = root;
        int links = 0;
        while (!todo.isEmpty()) {
            String name = todo.removeFirst();
            if (name.isEmpty() || name.equals(".")) continue;
            if (name.equals("..")) {
                Path parent = result.getParent();
                result = parent == null ? root : parent;
                continue;
            }
            Path candidate = result.resolve(name);
            if (Files.isSymbolicLink(candidate)) {
                if (++links > MAX_LINKS) return Optional.empty();
                Path target;
                try {
                    target = Files.readSymbolicLink(candidate);
                } catch (IOException | UnsupportedOperationException e) {
                    return Optional.empty();
                }
                List<String> parts = new ArrayList<>();
                for (Path n : target) parts.add(n.toString());
                for (int i = parts.size() - 1; i >= 0; i--) todo.addFirst(parts.get(i));
                if (target.isAbsolute()) result = target.getRoot();
                continue;
            }
            result = candidate;
        }
        return Optional.of(result);
    }

    @Override
    public String toString() {
        return "Workspace" + roots;
    }
}
