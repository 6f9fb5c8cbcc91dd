package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The Linux sandbox: bubblewrap ({@code /usr/bin/bwrap}, never from PATH). Every namespace is new (no network:
 * only a loopback of its own; a pid namespace, so the whole tree dies with it), no capabilities (we may run as
 * root), a new session (no TIOCSTI into the terminal). The command sees only: the system's program and library
 * directories read-only ({@link #SYSTEM}, the JDK the agent runs on and {@code $JAVA_HOME} when elsewhere), with
 * the entries of {@code /etc} that other users may not read shown empty; a private {@code /tmp}; an empty,
 * private home (with a few tool chains and caches shown again read-only, {@link #TOOLCHAINS}, their credential
 * files not among them, unless the policy is the workspace's only); the paths the user listed; the workspace
 * roots (read-write in workspace-write). Directories hidden inside what is shown (the home, the agent's own
 * configuration directory, the ssh-agent socket's directory) are replaced by an empty tmpfs, and every secrets
 * file of the workspace ({@link SecretFiles}) reads as empty. In workspace-write the protected names under each
 * root are read-only again; one that is a symbolic link fails closed; a protected name that does not exist is not
 * masked (nothing shows in its place), and one the command creates is moved aside afterwards
 * ({@link CreatedProtectedNames}). Nested repositories'
 * {@code .git} and a repository at the top under another name are read-only too ({@link NestedRepositories}).
 *
 * <p>bwrap reports on stderr ({@code --json-status-fd 2}); the command's stderr is merged into stdout inside,
 * so the sandbox's own failure is told apart from the command's.
 */
public final class Bubblewrap implements Sandbox {
    public static final Path BWRAP = Path.of("/usr/bin/bwrap");
    /** Directories a workspace root may not be: binding one back would show what the sandbox hides. */
    private static final List<String> HIDDEN = List.of("/tmp", "/run", "/home", "/root");
    /**
     * The system's program, library and configuration directories, shown read-only where they exist (a link,
     * as {@code /bin -> usr/bin}, is recreated as the same link): what commands need to run, and no user's data.
     * {@code /opt} holds add-on programs (FHS); {@code /nix}, {@code /snap} and {@code /run/current-system} are
     * where Nix, snaps and NixOS keep theirs. Not {@code /sys} (hardware and kernel state; Java, Node and the
     * build tools run without it, and its bind costs a few milliseconds per command).
     */
    static final List<String> SYSTEM = List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
            "/opt", "/nix", "/snap", "/run/current-system");
    /**
     * Tool chains and package caches under the hidden home that commands need (a pyenv Python, the Maven
     * repository) and that hold no credentials: shown read-only. Never the files beside them that do
     * ({@code ~/.m2/settings.xml}, {@code ~/.m2/settings-security.xml}, {@code ~/.npmrc},
     * {@code ~/.cargo/credentials.toml}, {@code ~/.gradle/gradle.properties}, {@code ~/.pypirc}, {@code ~/.netrc}).
     */
    static final List<String> TOOLCHAINS = List.of(".m2/repository", ".m2/wrapper", ".gradle/caches", ".gradle/wrapper",
            ".gradle/jdks", ".gradle/native", ".cargo/bin", ".cargo/registry", ".cargo/git", ".rustup", ".pyenv",
            ".nvm/versions", ".sdkman/candidates", ".jdks", ".local/bin", ".local/lib", ".npm/_cacache", ".npm/_npx",
            ".bun/bin", ".deno/bin", ".volta/tools", "go/pkg/mod", ".cache/pip");

    private final Path bwrap;
    private final List<Path> homes;
    private final List<Path> hidden;
    private final List<Path> programs;
    private final List<Path> systemSecrets;
    private Path empty;

    /**
     * @param homes    the user's home directory (absolute), as given and wherever it really is: shown empty, but for
     *                 its {@link #TOOLCHAINS}
     * @param hidden   more directories kept empty where they would be shown: the agent's own configuration
     *                 directory, the ssh-agent socket's directory (absolute)
     * @param programs program directories outside {@link #SYSTEM} to show read-only (the JDK the agent runs on)
     */
    public Bubblewrap(Path bwrap, List<Path> homes, List<Path> hidden, List<Path> programs) {
        this.bwrap = bwrap;
        this.homes = bothWays(homes);
        List<Path> all = new ArrayList<>(this.homes);
        all.addAll(bothWays(hidden));
        this.hidden = all.stream().distinct().toList();
        this.programs = programs.stream().filter(Files::isDirectory).map(Bubblewrap::real)
                .filter(p -> SYSTEM.stream().noneMatch(s -> p.startsWith(s)) && this.homes.stream().noneMatch(p::startsWith)).distinct().toList();
        this.systemSecrets = unreadableByOthers(Path.of("/etc"));
    }

    /** A sandbox hiding {@code homes} only (tests). */
    public Bubblewrap(Path bwrap, List<Path> homes) {
        this(bwrap, homes, List.of(), List.of());
    }

    /** As given and where each really is: a home reached through a link is hidden at both. */
    private static List<Path> bothWays(List<Path> paths) {
        List<Path> all = new ArrayList<>();
        for (Path p : paths) {
            all.add(p.toAbsolutePath().normalize());
            if (Files.exists(p)) all.add(real(p));
        }
        return all.stream().distinct().toList();
    }

    @Override
    public String kind() { return "bubblewrap"; }

    @Override
    public boolean hides(Path path, SandboxPolicy policy) {
        Path p = path.toAbsolutePath().normalize();
        int shown = -1;
        for (Path s : shown(policy)) if (p.startsWith(s)) shown = Math.max(shown, s.getNameCount());
        int hiddenAt = -1;
        for (Path h : hidden) if (p.startsWith(h)) hiddenAt = Math.max(hiddenAt, h.getNameCount());
        if (p.startsWith("/tmp")) hiddenAt = Math.max(hiddenAt, 1);
        return shown < 0 || hiddenAt >= shown;
    }

    /** Everything bound into the sandbox for this policy (the tool chains as they exist). */
    private List<Path> shown(SandboxPolicy policy) {
        List<Path> all = new ArrayList<>();
        for (String s : SYSTEM) all.add(Path.of(s));
        all.addAll(programs);
        all.addAll(policy.readablePaths());
        all.addAll(policy.writablePaths());
        for (Path r : policy.roots()) all.add(real(r));
        if (policy.toolchains()) for (Path h : homes) for (String t : TOOLCHAINS) all.add(h.resolve(t));
        return all;
    }

    @Override
    public SandboxLaunch prepare(String commandLine, Path cwd, SandboxPolicy policy) throws SandboxException {
        return new SandboxLaunch(argv(commandLine, cwd, policy), true, () -> {});
    }

    /** The argv for one command. */
    List<String> argv(String commandLine, Path cwd, SandboxPolicy policy) throws SandboxException {
        List<String> a = new ArrayList<>(List.of(bwrap.toString(), "--unshare-all", "--die-with-parent", "--new-session",
                "--cap-drop", "ALL"));
        for (String s : SYSTEM) {
            Path p = Path.of(s);
            if (Files.isSymbolicLink(p)) {
                try {
                    a.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), s));
                } catch (IOException e) {
                    // unreadable: not shown
                }
            } else if (Files.isDirectory(p)) {
                bind(a, "--ro-bind", p);
            }
        }
        for (Path p : programs) bind(a, "--ro-bind", p);
        a.addAll(List.of("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"));
        for (Path h : homes) { // an empty, writable home of its own (caches, dotfiles), discarded afterwards
            if (!isRootDirectory(h) && Files.isDirectory(h)) tmpfs(a, h.toString());
        }

        List<Path> roots = policy.roots().stream().map(Bubblewrap::real).toList();
        for (Path r : roots) {
            if (HIDDEN.stream().anyMatch(h -> r.equals(Path.of(h))) || hidden.contains(r)) { // cwd = ~: binding it back would show (and give) the whole home
                throw new SandboxException("the workspace " + r + " is a directory the sandbox hides, so it cannot be shown to the command");
            }
            if (r.getNameCount() == 0) { // cwd = /: the whole machine would be the workspace (writable in workspace-write)
                throw new SandboxException("the workspace is the filesystem root, which the sandbox cannot give to a command");
            }
        }
        List<Path> listed = new ArrayList<>();
        for (Path p : policy.readablePaths()) if (Files.exists(p)) { bind(a, "--ro-bind", real(p)); listed.add(real(p)); }
        for (Path p : policy.writablePaths()) {
            if (Files.exists(p)) { bind(a, policy.writable() ? "--bind" : "--ro-bind", real(p)); listed.add(real(p)); }
        }
        for (Path r : roots) bind(a, policy.writable() ? "--bind" : "--ro-bind", r);
        listed.addAll(roots);
        for (Path h : hidden) { // a hidden directory inside what is shown stays hidden
            if (Files.isDirectory(h) && listed.stream().anyMatch(r -> h.startsWith(r) && !h.equals(r))) tmpfs(a, h.toString());
        }
        if (policy.toolchains()) {
            for (Path h : homes) {
                for (String t : TOOLCHAINS) {
                    Path p = h.resolve(t);
                    if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) && roots.stream().noneMatch(p::startsWith)) bind(a, "--ro-bind", p);
                }
            }
        }
        for (Path s : systemSecrets) {
            if (Files.isDirectory(s, LinkOption.NOFOLLOW_LINKS)) tmpfs(a, s.toString());
            else a.addAll(List.of("--ro-bind", empty().toString(), s.toString()));
        }
        if (policy.writable()) {
            for (Path r : roots) {
                Set<Path> entries = new LinkedHashSet<>();
                try (Stream<Path> list = Files.list(r)) {
                    list.filter(e -> SandboxPolicy.isProtected(e.getFileName().toString())).sorted().forEach(entries::add);
                } catch (IOException e) {
                    throw new SandboxException("cannot list " + r + " to protect its configuration: " + e.getMessage());
                }
                for (Path e : entries) protect(a, e);
                Path dir = real(cwd);
                try {
                    for (Path g : NestedRepositories.in(r, dir)) if (!entries.contains(g)) protect(a, g);
                } catch (IOException e) {
                    throw new SandboxException("cannot search " + r + " for nested repositories: " + e.getMessage());
                }
            }
        }
        // last: over the protected names' own read-only binds, so that a secrets file reads as empty in every mode
        // (and in the paths listed or let read after a question: their secrets are not the workspace's either)
        for (Path r : listed) {
            if (Files.isDirectory(r)) for (Path s : SecretFiles.in(r)) a.addAll(List.of("--ro-bind", empty().toString(), s.toString()));
        }
        a.addAll(List.of("--chdir", real(cwd).toString(), "--setenv", "TMPDIR", "/tmp", "--json-status-fd", "2",
                "--", "/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", "bash", "-c", commandLine));
        return a;
    }

    /**
     * An empty, read-only file of the agent's, bound over each file a command must read as empty (a secrets
     * file, {@code /etc/shadow}): reading it gives nothing, where {@code /dev/null} bound in would be refused.
     */
    private synchronized Path empty() throws SandboxException {
        if (empty != null && Files.isRegularFile(empty, LinkOption.NOFOLLOW_LINKS)) return empty;
        try {
            Path f = Files.createTempFile("agent-sandbox-empty", "");
            f.toFile().deleteOnExit();
            Files.setPosixFilePermissions(f, java.nio.file.attribute.PosixFilePermissions.fromString("r--r--r--"));
            return empty = f;
        } catch (IOException | UnsupportedOperationException e) {
            throw new SandboxException("cannot create the empty file that hides secrets: " + e.getMessage());
        }
    }

    /** The entries of {@code dir} (four levels) that other users may not read, such as {@code /etc/shadow}. */
    private static List<Path> unreadableByOthers(Path dir) {
        List<Path> out = new ArrayList<>();
        try {
            Files.walkFileTree(dir, Set.of(), 4, new java.nio.file.SimpleFileVisitor<>() {
                @Override
                public java.nio.file.FileVisitResult preVisitDirectory(Path d, java.nio.file.attribute.BasicFileAttributes attrs) throws IOException {
                    if (d.equals(dir) || othersMayRead(d)) return java.nio.file.FileVisitResult.CONTINUE;
                    out.add(d);
                    return java.nio.file.FileVisitResult.SKIP_SUBTREE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFile(Path f, java.nio.file.attribute.BasicFileAttributes attrs) throws IOException {
                    if ((attrs.isRegularFile() || attrs.isDirectory()) && !othersMayRead(f)) out.add(f);
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFileFailed(Path f, IOException e) {
                    return java.nio.file.FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // no such directory
        }
        return out;
    }

    private static boolean othersMayRead(Path p) throws IOException {
        try {
            return Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ);
        } catch (UnsupportedOperationException e) {
            return true;
        }
    }

    /** Keeps an existing protected entry read-only; a missing one is left alone (see {@link CreatedProtectedNames}). */
    private static void protect(List<String> a, Path p) throws SandboxException {
        if (Files.isSymbolicLink(p)) {
            throw new SandboxException(p + " is a symbolic link, so the sandbox cannot keep it read-only");
        }
        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) bind(a, "--ro-bind", p);
    }

    private static void tmpfs(List<String> a, String dir) {
        a.addAll(List.of("--tmpfs", dir));
    }

    private static void bind(List<String> a, String how, Path p) {
        a.addAll(List.of(how, p.toString(), p.toString()));
    }

    private static boolean isRootDirectory(Path p) {
        return p.getParent() == null;
    }

    /** Bind sources and targets are real paths: a root reached through a link is bound where it really is. */
    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }
}
