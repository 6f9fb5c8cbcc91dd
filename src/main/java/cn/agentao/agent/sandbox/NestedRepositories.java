package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The git directories inside a workspace root besides its top-level {@code .git}, which a sandboxed command must
 * not write (a planted {@code hooks/pre-commit} runs when the user next commits there): every nested {@code .git}
 * (directory, or a submodule's {@code .git} file) found by a bounded breadth-first walk, every {@code .git} on the way from the
 * root down to the command's directory, and a repository at the top under another name ({@code HEAD},
 * {@code objects}, {@code refs}), and the hook configurations in the working trees of the root and of those
 * repositories ({@link SandboxPolicy#HOOK_NAMES}, a {@code core.hooksPath} inside the root). The walk does not follow links, skips dependency and build directories
 * ({@link #SKIPPED}), goes {@link #MAX_DEPTH} levels deep and stops
 * after {@link #MAX_ENTRIES} entries (see docs/performance.md, OS sandbox): repositories beyond are not found.
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
        List<Path> repositories = new ArrayList<>(List.of(root));
        for (Path g : found) if (g.getFileName().toString().equalsIgnoreCase(".git")) repositories.add(g.getParent());
        for (Path repo : repositories) hooks(root, repo, found);
        return found;
    }

    /** The hook configurations of the working tree {@code repo} that exist, and a {@code core.hooksPath} inside the root. */
    private static void hooks(Path root, Path repo, Set<Path> found) {
        for (String name : SandboxPolicy.HOOK_NAMES) {
            Path p = repo.resolve(name);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) found.add(p);
        }
        Path config = repo.resolve(".git/config");
        if (!Files.isRegularFile(config, LinkOption.NOFOLLOW_LINKS)) return;
        try {
            for (String line : Files.readAllLines(config)) {
                Matcher m = HOOKS_PATH.matcher(line);
                if (!m.matches()) continue;
                Path hooks = repo.resolve(m.group(1)).normalize();
                if (hooks.startsWith(root) && !hooks.equals(root) && Files.exists(hooks, LinkOption.NOFOLLOW_LINKS)) found.add(hooks);
            }
        } catch (IOException | java.nio.file.InvalidPathException unreadable) {
            // git could not use it either
        }
    }

    /** {@code hooksPath = dir} in a git config file (git's own key is case-insensitive); quotes are not unfolded. */
    private static final Pattern HOOKS_PATH = Pattern.compile("(?i)\\s*hookspath\\s*=\\s*([^\"#;]+?)\\s*");

    /** Breadth first, so that shallow sub-projects are found before a large directory uses up the budget. */
    private static void walk(Path root, Set<Path> found) {
        BoundedWalk.walk(root, MAX_DEPTH, MAX_ENTRIES, (e, name, depth) -> {
            if (!name.equalsIgnoreCase(".git")) return !SKIPPED.contains(name);
            if (depth > 1) found.add(e); // the top one is a protected name already
            return false;
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
