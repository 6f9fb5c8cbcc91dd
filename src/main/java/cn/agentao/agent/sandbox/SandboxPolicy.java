package cn.agentao.agent.sandbox;

import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.permission.ProtectedPaths;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a sandboxed command may do: see the system's program and library directories, the workspace roots and the
 * paths the user listed ({@code sandbox.readablePaths}, {@code sandbox.writablePaths} in {@code config.json}), and
 * nothing else; write nowhere ({@code writable=false}) or only inside the workspace roots and the user's writable
 * paths ({@code writable=true}, minus the {@link #PROTECTED_NAMES} at the top of each root), always with a private
 * {@code /tmp}, an empty home and no network.
 *
 * @param roots         the workspace roots (the session cwd first, then additional directories): always visible,
 *                      writable only when {@code writable}
 * @param writable      whether the roots (and {@code writablePaths}) are writable
 * @param network       whether the network is reachable (never, for now: a command that needs it is escalated)
 * @param readablePaths more directories or files shown read-only (the user's own list)
 * @param writablePaths more directories shown, writable when {@code writable} (the user's own list)
 * @param toolchains    whether the tool chains and caches in the home are shown read-only (not for a space's members)
 */
public record SandboxPolicy(List<Path> roots, boolean writable, boolean network, List<Path> readablePaths,
                            List<Path> writablePaths, boolean toolchains) {

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
        return ProtectedPaths.isSecretName(n) || PROTECTED_NAMES.stream().anyMatch(p -> p.equalsIgnoreCase(n));
    }

    public SandboxPolicy {
        roots = List.copyOf(roots);
        readablePaths = List.copyOf(readablePaths);
        writablePaths = List.copyOf(writablePaths);
    }

    /** The roots only, with the tool chains: the policy of the local user without listed paths. */
    public SandboxPolicy(List<Path> roots, boolean writable, boolean network) {
        this(roots, writable, network, List.of(), List.of(), true);
    }

    /** The policy for a permission mode; empty for full-access, which runs commands without a sandbox. */
    public static Optional<SandboxPolicy> forMode(Mode mode, List<Path> roots) {
        return switch (mode) {
            case FULL_ACCESS -> Optional.empty();
            case READ_ONLY, PLAN -> Optional.of(new SandboxPolicy(roots, false, false));
            case WORKSPACE_WRITE -> Optional.of(new SandboxPolicy(roots, true, false));
        };
    }

    /** This policy with the user's own readable and writable paths added. */
    public SandboxPolicy withPaths(List<Path> readable, List<Path> writable) {
        return new SandboxPolicy(roots, this.writable, network, readable, writable, toolchains);
    }

    /** This policy reduced to the workspace: no listed paths, no tool chains (for work nobody here may answer for). */
    public SandboxPolicy workspaceOnly() {
        return new SandboxPolicy(roots, writable, network, List.of(), List.of(), false);
    }

    /** "writable: /w, /x (except .git, …) and a private /tmp; network off", for logs, notices and the model. */
    public String describe() {
        String where = writable
                ? String.join(", ", java.util.stream.Stream.concat(roots.stream(), writablePaths.stream()).map(Path::toString).toList())
                + " (except " + String.join(", ", PROTECTED_NAMES) + ") and a private /tmp"
                : "only a private /tmp (the filesystem is read-only)";
        return "writable: " + where + "; visible: the system's program directories, the workspace"
                + (readablePaths.isEmpty() && writablePaths.isEmpty() ? "" : " and the paths in your sandbox settings")
                + (toolchains ? ", tool chain caches in the home" : "") + ", nothing else; .env files read as empty; network "
                + (network ? "on" : "off");
    }
}
