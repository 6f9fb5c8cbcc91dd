package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The git directories inside a workspace root besides its top-level {@code .git}, which a sandboxed command must
 * not write (a planted {@code hooks/pre-commit} runs when the user next commits there): every nested {@code .git}
 * (directory, or a submodule's {@code .git} file) found by a bounded walk, every {@code .git} on the way from the
 * root down to the command's directory, and a repository at the top under another name ({@code HEAD},
 * {@code objects}, {@code refs}). The walk does not follow links, skips dependency and build directories
 * ({@link #SKIPPED}) and stops after {@link #MAX_DIRECTORIES} directories: repositories beyond are not found.
 */
final class NestedRepositories {
    static final int MAX_DIRECTORIES = 4000;
    static final int MAX_DEPTH = 6;
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

    private static void walk(Path root, Set<Path> found) throws IOException {
        int[] dirs = {0};
        Files.walkFileTree(root, EnumSet.noneOf(java.nio.file.FileVisitOption.class), MAX_DEPTH, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (dir.equals(root)) return FileVisitResult.CONTINUE;
                String name = dir.getFileName().toString();
                if (name.equalsIgnoreCase(".git")) {
                    if (!dir.getParent().equals(root)) found.add(dir);
                    return FileVisitResult.SKIP_SUBTREE;
                }
                if (++dirs[0] > MAX_DIRECTORIES) return FileVisitResult.TERMINATE;
                return SKIPPED.contains(name) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                // a .git file (submodule, worktree) or a .git directory at the depth limit
                if (file.getFileName().toString().equalsIgnoreCase(".git") && !file.getParent().equals(root)) found.add(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE; // unreadable: the command cannot write it either
            }
        });
    }

    /** A directory git would take for a repository: {@code HEAD}, {@code objects/} and {@code refs/}. */
    private static boolean isGitDirectory(Path p) {
        return !p.getFileName().toString().equalsIgnoreCase(".git") && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
                && Files.isRegularFile(p.resolve("HEAD"), LinkOption.NOFOLLOW_LINKS)
                && Files.isDirectory(p.resolve("objects"), LinkOption.NOFOLLOW_LINKS)
                && Files.isDirectory(p.resolve("refs"), LinkOption.NOFOLLOW_LINKS);
    }
}
