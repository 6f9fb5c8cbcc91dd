package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The Linux sandbox: bubblewrap ({@code /usr/bin/bwrap}, never from PATH). Every namespace is new (no network:
 * only a loopback of its own; a pid namespace, so the whole tree dies with it), no capabilities (we may run as
 * root), a new session (no TIOCSTI into the terminal), the whole filesystem read-only, {@code /tmp}, {@code /run},
 * {@code /home}, {@code /root}, the home directory and the ssh-agent socket's directory replaced by empty
 * private tmpfs (a few tool chains and caches in the home shown again read-only: {@link #TOOLCHAINS}), then the
 * workspace roots bound back (read-write in workspace-write) with the protected names
 * under each root read-only again; a protected name that does not exist is masked with {@code /dev/null}, or an
 * empty read-only directory for {@code .git} and {@code .agent} (the empty file or directory that leaves on the
 * host is removed afterwards, or when the agent ends), one that is a symbolic link fails closed. Nested
 * repositories' {@code .git} and a repository at the top under another name are read-only too
 * ({@link NestedRepositories}).
 *
 * <p>bwrap reports on stderr ({@code --json-status-fd 2}); the command's stderr is merged into stdout inside,
 * so the sandbox's own failure is told apart from the command's.
 */
public final class Bubblewrap implements Sandbox {
    public static final Path BWRAP = Path.of("/usr/bin/bwrap");
    private static final List<String> HIDDEN = List.of("/tmp", "/run", "/home", "/root");
    /**
     * Tool chains and package caches under a hidden home that commands need (a pyenv Python, the Maven
     * repository) and that hold no credentials (unlike {@code ~/.m2/settings.xml} or {@code ~/.npmrc}): shown
     * read-only.
     */
    static final List<String> TOOLCHAINS = List.of(".m2/repository", ".gradle/caches", ".gradle/wrapper", ".cargo/bin",
            ".cargo/registry", ".rustup", ".pyenv", ".nvm", ".sdkman/candidates", ".local/bin", ".local/lib",
            ".npm/_cacache", "go/pkg/mod", ".cache/pip");
    /** Masks in use by running commands: one is removed from the host only when the last user is done. */
    private static final Map<Path, Integer> MASKS = new HashMap<>();
    /** Whether a shutdown hook removes the masks left by commands still running when the agent ends. */
    private static boolean drainOnExit;
    /** Protected names that are directories when they exist: a missing one is masked with an empty directory. */
    private static final Set<String> DIRECTORY_NAMES = Set.of(".git", ".agent");

    private final Path bwrap;
    private final List<Path> hidden;

    /**
     * @param hidden directories replaced by an empty tmpfs besides /tmp, /run, /home and /root: the user's home
     *               directory, the ssh-agent socket's directory (absolute)
     */
    public Bubblewrap(Path bwrap, List<Path> hidden) {
        this.bwrap = bwrap;
        List<Path> all = new ArrayList<>();
        for (Path p : hidden) { // as given and where it really is: a home reached through a link is hidden at both
            all.add(p.toAbsolutePath().normalize());
            if (Files.exists(p)) all.add(real(p));
        }
        this.hidden = all.stream().distinct().toList();
    }

    @Override
    public String kind() { return "bubblewrap"; }

    @Override
    public List<Path> hiddenDirectories() {
        List<Path> all = new ArrayList<>(HIDDEN.stream().map(Path::of).toList());
        all.addAll(hidden);
        return all;
    }

    @Override
    public SandboxLaunch prepare(String commandLine, Path cwd, SandboxPolicy policy) throws SandboxException {
        List<Path> masks = new ArrayList<>();
        List<String> argv = argv(commandLine, cwd, policy, masks);
        synchronized (MASKS) {
            if (!masks.isEmpty() && !drainOnExit) {
                Runtime.getRuntime().addShutdownHook(new Thread(Bubblewrap::drainMasks, "sandbox-masks"));
                drainOnExit = true;
            }
            for (Path m : masks) MASKS.merge(m, 1, Integer::sum);
        }
        return new SandboxLaunch(argv, true, () -> removeMasks(masks));
    }

    /** The argv for one command; {@code masks} receives the protected paths that are masked because they do not exist. */
    List<String> argv(String commandLine, Path cwd, SandboxPolicy policy, List<Path> masks) throws SandboxException {
        List<String> a = new ArrayList<>(List.of(bwrap.toString(), "--unshare-all", "--die-with-parent", "--new-session",
                "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"));
        for (String h : HIDDEN) tmpfs(a, h);
        for (Path h : hidden) { // nothing to hide where nothing is (and bwrap could not make the mount point)
            if (!underHidden(h) && !isRootDirectory(h) && Files.isDirectory(h)) tmpfs(a, h.toString());
        }

        List<Path> roots = policy.roots().stream().map(Bubblewrap::real).toList();
        for (Path r : roots) {
            if (hiddenDirectories().contains(r)) { // cwd = ~: binding it back would show (and give) the whole home
                throw new SandboxException("the workspace " + r + " is a directory the sandbox hides, so it cannot be shown to the command");
            }
            if (r.getNameCount() == 0) { // cwd = /: the whole machine would be the workspace (writable in workspace-write)
                throw new SandboxException("the workspace is the filesystem root, which the sandbox cannot give to a command");
            }
        }
        for (Path r : roots) bind(a, policy.writable() ? "--bind" : "--ro-bind", r);
        for (Path h : hiddenDirectories()) { // a hidden directory inside a root stays hidden
            if (Files.isDirectory(h) && roots.stream().anyMatch(r -> h.startsWith(r) && !h.equals(r))) tmpfs(a, h.toString());
        }
        for (Path h : hidden) {
            for (String t : TOOLCHAINS) {
                Path p = h.resolve(t);
                if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) && roots.stream().noneMatch(p::startsWith)) bind(a, "--ro-bind", p);
            }
        }
        if (policy.writable()) {
            for (Path r : roots) {
                Set<Path> entries = new LinkedHashSet<>();
                for (String name : SandboxPolicy.PROTECTED_NAMES) entries.add(r.resolve(name));
                try (Stream<Path> list = Files.list(r)) {
                    list.filter(e -> SandboxPolicy.isProtected(e.getFileName().toString())).sorted().forEach(entries::add);
                } catch (IOException e) {
                    throw new SandboxException("cannot list " + r + " to protect its configuration: " + e.getMessage());
                }
                for (Path e : entries) protect(a, e, masks);
                Path dir = real(cwd);
                try {
                    for (Path g : NestedRepositories.in(r, dir)) if (!entries.contains(g)) protect(a, g, masks);
                } catch (IOException e) {
                    throw new SandboxException("cannot search " + r + " for nested repositories: " + e.getMessage());
                }
            }
        }
        a.addAll(List.of("--chdir", real(cwd).toString(), "--setenv", "TMPDIR", "/tmp", "--json-status-fd", "2",
                "--", "/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", "bash", "-c", commandLine));
        return a;
    }

    private static void protect(List<String> a, Path p, List<Path> masks) throws SandboxException {
        if (Files.isSymbolicLink(p)) {
            throw new SandboxException(p + " is a symbolic link, so the sandbox cannot keep it read-only");
        }
        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            bind(a, "--ro-bind", p);
        } else if (DIRECTORY_NAMES.contains(p.getFileName().toString())) {
            // an empty read-only directory: git on the host skips an invalid .git directory and looks upward (an
            // empty .git FILE would break it: "invalid gitfile format"), and mkdir .agent works once it is gone
            a.addAll(List.of("--tmpfs", p.toString(), "--remount-ro", p.toString()));
            masks.add(p);
        } else {
            a.addAll(List.of("--ro-bind", "/dev/null", p.toString()));
            masks.add(p);
        }
    }

    private static void removeMasks(List<Path> masks) {
        synchronized (MASKS) {
            for (Path m : masks) {
                if (MASKS.merge(m, -1, Integer::sum) > 0) continue;
                MASKS.remove(m);
                removeMask(m);
            }
        }
    }

    /** On the way out (SIGTERM included) the masks of commands still running are removed too. */
    private static void drainMasks() {
        synchronized (MASKS) {
            MASKS.keySet().forEach(Bubblewrap::removeMask);
            MASKS.clear();
        }
    }

    /** Removes the mount point a mask left on the host: an empty file, or an empty directory. */
    private static void removeMask(Path m) {
        try {
            if (Files.isDirectory(m, LinkOption.NOFOLLOW_LINKS)
                    || Files.isRegularFile(m, LinkOption.NOFOLLOW_LINKS) && Files.size(m) == 0) {
                Files.delete(m); // a directory that is not empty is someone else's now and stays
            }
        } catch (IOException ignored) {
            // someone else's now, or already gone
        }
    }

    private static void tmpfs(List<String> a, String dir) {
        a.addAll(List.of("--tmpfs", dir));
    }

    private static void bind(List<String> a, String how, Path p) {
        a.addAll(List.of(how, p.toString(), p.toString()));
    }

    private static boolean underHidden(Path p) {
        for (String h : HIDDEN) if (p.startsWith(h)) return true;
        return false;
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
