package cn.agentao.agent.permission;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Which git directory a git command started in a directory would use, found the way git finds it (walking up:
 * a {@code .git} directory or {@code gitdir:} file, else the directory itself when it looks like a git
 * directory), and whether that is a git directory under another name. Writes into anything named {@code .git}
 * are never silent, so a git directory on such a path holds no configuration written behind the user's back;
 * one elsewhere ({@code HEAD}, {@code config} with {@code core.fsmonitor}, {@code objects}, {@code refs}
 * written as ordinary files) could make any git command run programs.
 */
final class GitDiscovery {
    private GitDiscovery() {}

    /** Whether git started in {@code dir} would use a git directory whose path has no {@code .git} component. */
    static boolean usesDisguisedGitDir(Path dir) {
        Path d = Workspace.realPath(dir).orElse(null);
        if (d == null) return true;
        for (; d != null; d = d.getParent()) {
            Path dotGit = d.resolve(".git");
            if (Files.isDirectory(dotGit)) return !underDotGit(dotGit);
            if (Files.isRegularFile(dotGit)) return !underDotGit(gitFileTarget(dotGit, d));
            if (looksLikeGitDir(d)) return !underDotGit(d);
        }
        return false;
    }

    /** Roughly git's is_git_directory, erring towards yes: a HEAD plus objects, refs or commondir. */
    static boolean looksLikeGitDir(Path d) {
        return Files.exists(d.resolve("HEAD"))
                && (Files.exists(d.resolve("objects")) || Files.exists(d.resolve("refs"))
                || Files.exists(d.resolve("commondir")));
    }

    private static Path gitFileTarget(Path file, Path dir) {
        try {
            List<String> lines = Files.readAllLines(file);
            if (lines.isEmpty() || !lines.get(0).startsWith("gitdir:")) return null;
            return dir.resolve(lines.get(0).substring("gitdir:".length()).strip());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean underDotGit(Path p) {
        if (p == null) return false;
        Path real = Workspace.realPath(p).orElse(null);
        if (real == null) return false;
        for (Path name : real) if (name.toString().equals(".git")) return true;
        return false;
    }
}
