package cn.agentao.agent.permission;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Paths a file tool may write only after asking, every time, in every mode that writes (full-access too),
 * because what is written there is later obeyed without a question: the agent's project configuration
 * ({@code .agent/}, whose {@code mcp.json} starts programs), {@code .env*} files (providers, keys, direnv),
 * project instructions ({@code AGENTS.md}, {@code AGENTAO.md}, {@code CLAUDE.md}) and git directories: {@code .git} and any
 * directory that is, or would become with this write, one under another name ({@code HEAD} beside
 * {@code objects}, {@code refs} or {@code config}), whose config and hooks make git run programs. Judged on
 * the path as written and on its real path (links resolved), names case-insensitively.
 */
public final class ProtectedPaths {
    private static final List<String> GIT_PARTS = List.of("objects", "refs", "config");

    private ProtectedPaths() {}

    /**
     * Whether a file name is that of a secrets file: {@code .env}, {@code .envrc}, {@code .env.local}, … in any
     * case. Writing one and reading one with a file tool are asked every time; a tree search passes over them, and
     * inside the OS sandbox they read as empty.
     */
    public static boolean isSecretName(String name) {
        return name.toLowerCase(Locale.ROOT).startsWith(SECRET_PREFIX);
    }

    /** What a secrets file's name begins with, in any case (the one definition: the sandboxes derive theirs from it). */
    public static final String SECRET_PREFIX = ".env";

    /** Why a write to {@code path} must be asked about, or empty when it is an ordinary file. */
    static Optional<String> reason(Path path, Workspace ws) {
        Path written = path.normalize();
        Path real = Workspace.realPath(path).orElse(written);
        for (Path p : List.of(written, real)) {
            Optional<String> why = byName(p);
            if (why.isPresent()) return why;
        }
        return gitDirectoryUnderAnotherName(real, ws);
    }

    private static Optional<String> byName(Path p) {
        for (Path part : p) {
            String n = part.toString().toLowerCase(Locale.ROOT);
            if (n.equals(".git")) return Optional.of("it is inside a git directory, whose config and hooks make git run programs");
            if (n.equals(".agent")) return Optional.of("it is the agent's project configuration (.agent/), which can start programs");
        }
        Path file = p.getFileName();
        if (file == null) return Optional.empty();
        String n = file.toString().toLowerCase(Locale.ROOT);
        if (isSecretName(n)) return Optional.of("a .env file can choose model providers, keys and tool settings");
        if (n.equals("agents.md") || n.equals("agentao.md") || n.equals("claude.md")) return Optional.of("project instructions steer the agent in every session");
        return Optional.empty();
    }

    /** A directory of the workspace holding {@code HEAD} and a git part once this write lands is a git directory. */
    private static Optional<String> gitDirectoryUnderAnotherName(Path real, Workspace ws) {
        Path child = real;
        for (Path dir = real.getParent(); dir != null && ws.containsReal(dir); child = dir, dir = dir.getParent()) {
            String entry = child.getFileName().toString();
            boolean head = entry.equals("HEAD") || Files.exists(dir.resolve("HEAD"));
            boolean part = GIT_PARTS.contains(entry);
            for (String g : GIT_PARTS) part |= Files.exists(dir.resolve(g));
            if (head && part) {
                return Optional.of(dir + " is, or would become, a git directory (HEAD with objects, refs or config), "
                        + "whose config and hooks make git run programs");
            }
        }
        return Optional.empty();
    }
}
