package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The git directories inside a workspace root besides its top-level {@code .git}, which a sandboxed command must
 * not write (a planted {@code hooks/pre-commit} runs when the user next commits there): every nested {@code .git}
 * (directory, or a submodule's {@code .git} file) found by a bounded breadth-first walk, every {@code .git} on the way from the
 * root down to the command's directory, and a repository at the top under another name ({@code HEAD},
 * {@code objects}, {@code refs}). The walk does not follow links, skips dependency and build directories
 * ({@link #SKIPPED}), goes {@link #MAX_DEPTH} levels deep and stops
 * after {@link #MAX_ENTRIES} entries (see the README's sandbox benchmark): repositories beyond are not found.
 */
final class NestedRepositories {
    static final int MAX_ENTRIES = 1500;
    static final int MAX_DEPTH = 4;
    static final Set<String> SKIPPED = Set.of("node_modules", "target", "build", "dist", "out", ".venv", "venv",
            "__pycache__", ".gradle", ".idea", ".cache", ".tox", ".mypy_cache", ".pytest_cache", ".next", ".terraform");

    private NestedRepositories() {}

    /** The paths to keep read-only in {@code root} (real, absolute), apart from the top-level protected names. */
    static Set<Path> in(Path root, Path cwd) throws IOException {
        Set<Path> found = new LinkedHashSet<>();
        walk(root, found);
        if (cwd.startsWith(root)) { // the repository the command runs in, however deep or skipped
            for (Path d = cwd; !d.equals(root); d = d.getParent()) {
                Path git = d.resolve(".git");
                if (Files.exists(git, LinkOption.NOFOLLOW_LINKS)) found.add(git);
            }
        }
        try (var top = Files.list(root)) {
            top.filter(NestedRepositories::isGitDirectory).sorted().forEach(found::add);
        }
        return found;
    }

    /** Breadth first, so that shallow sub-projects are found before a large directory uses up the budget. */
    private static void walk(Path root, Set<Path> found) {
        ArrayDeque<Path> level = new ArrayDeque<>(List.of(root));
        int seen = 0;
        for (int depth = 1; depth <= MAX_DEPTH && !level.isEmpty(); depth++) {
            ArrayDeque<Path> next = new ArrayDeque<>();
            for (Path dir : level) {
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                    for (Path e : entries) {
                        if (++seen > MAX_ENTRIES) return;
                        String name = e.getFileName().toString();
                        if (name.equalsIgnoreCase(".git")) {
                            if (depth > 1) found.add(e); // the top one is a protected name already
                        } else if (!SKIPPED.contains(name) && depth < MAX_DEPTH && Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) {
                            next.add(e);
                        }
                    }
                } catch (IOException | DirectoryIteratorException unreadable) {
                    // the command cannot write what the agent cannot read either
                }
            }
            level = next;
        }
    }

    /** A directory git would take for a repository: {@code HEAD}, {@code objects/} and {@code refs/}. */
    private static boolean isGitDirectory(Path p) {
        return !p.getFileName().toString().equalsIgnoreCase(".git") && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
                && Files.isRegularFile(p.resolve("HEAD"), LinkOption.NOFOLLOW_LINKS)
                && Files.isDirectory(p.resolve("objects"), LinkOption.NOFOLLOW_LINKS)
                && Files.isDirectory(p.resolve("refs"), LinkOption.NOFOLLOW_LINKS);
    }
}
