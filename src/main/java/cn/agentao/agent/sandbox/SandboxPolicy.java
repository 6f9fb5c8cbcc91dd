package cn.agentao.agent.sandbox;

import cn.agentao.agent.permission.Mode;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a sandboxed command may do: see the whole filesystem except the user's home (hidden), write nowhere
 * ({@code writable=false}) or only inside the workspace roots ({@code writable=true}, minus the
 * {@link #PROTECTED_NAMES} at the top of each root), always with a private {@code /tmp} and no network.
 *
 * @param roots    the workspace roots (the session cwd first, then additional directories): always visible,
 *                 writable only when {@code writable}
 * @param writable whether the roots are writable
 * @param network  whether the network is reachable (never, for now: a command that needs it is escalated)
 */
public record SandboxPolicy(List<Path> roots, boolean writable, boolean network) {

    /**
     * Names under each root that stay read-only even when the roots are writable, as the file tools ask before
     * writing them ({@code permission.ProtectedPaths}): they can make git or the agent run programs, choose
     * providers and keys, or steer the agent. Missing ones cannot be created either; besides these, every
     * existing {@code .env*} entry and any spelling of these names in another case is kept read-only.
     */
    public static final List<String> PROTECTED_NAMES = List.of(".git", ".agent", ".env", ".envrc", "AGENTS.md", "AGENTAO.md", "CLAUDE.md");

    /**
     * Hook configurations kept in the working tree that git hook managers (husky, plain hooks directories,
     * pre-commit, lefthook) run on the user's next commit: read-only where they exist, at the top of each root and
     * of each nested repository; missing ones are not masked (a project may add one).
     */
    public static final List<String> HOOK_NAMES = List.of(".husky", ".githooks", ".pre-commit-config.yaml",
            "lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml");

    /** Whether an entry at the top of a root is protected: a name above in any case, or {@code .env…}. */
    public static boolean isProtected(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT);
        return n.startsWith(".env") || PROTECTED_NAMES.stream().anyMatch(p -> p.equalsIgnoreCase(n));
    }

    public SandboxPolicy {
        roots = List.copyOf(roots);
    }

    /** The policy for a permission mode; empty for full-access, which runs commands without a sandbox. */
    public static Optional<SandboxPolicy> forMode(Mode mode, List<Path> roots) {
        return switch (mode) {
            case FULL_ACCESS -> Optional.empty();
            case READ_ONLY, PLAN -> Optional.of(new SandboxPolicy(roots, false, false));
            case WORKSPACE_WRITE -> Optional.of(new SandboxPolicy(roots, true, false));
        };
    }

    /** "writable: /w, /x (except .git, …) and a private /tmp; network off", for logs, notices and the model. */
    public String describe() {
        String where = writable
                ? String.join(", ", roots.stream().map(Path::toString).toList()) + " (except " + String.join(", ", PROTECTED_NAMES)
                + ") and a private /tmp"
                : "only a private /tmp (the filesystem is read-only)";
        return "writable: " + where + "; home directory hidden; network " + (network ? "on" : "off");
    }
}
