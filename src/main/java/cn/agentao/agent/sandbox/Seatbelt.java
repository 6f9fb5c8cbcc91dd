package cn.agentao.agent.sandbox;

import cn.agentao.agent.permission.ProtectedPaths;
import cn.agentao.agent.permission.Workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The macOS sandbox: {@code /usr/bin/sandbox-exec} with a generated Seatbelt profile giving a command the view
 * {@link Bubblewrap} gives on Linux, as far as Seatbelt can. Everything is denied by default; programs may run and
 * fork; a file's attributes ({@code stat}) may be read anywhere, but contents and directory listings only in
 * {@link #SYSTEM}, the JDK the agent runs on, the private temporary directory, the workspace roots, the paths the
 * user listed and (for the machine's user) the tool chains of the home ({@link Bubblewrap#TOOLCHAINS}); the rest of
 * the home and the agent's own configuration directory are denied, even inside a shown path. Every secrets file
 * ({@link ProtectedPaths#isSecretName}) is unreadable wherever it is: by a rule on its name, and, for one a link
 * named so leads to, by its real path found with {@link SecretFiles}. Writes go only to {@code /dev/null}, the
 * private temporary directory and, in workspace-write, the roots minus their protected names and the user's
 * writable paths; no network rule is granted. Seatbelt matches real paths, so every path is resolved first, and
 * reaches the profile as a parameter ({@code -D}), never spliced into its text.
 */
public final class Seatbelt implements Sandbox {
    public static final Path SANDBOX_EXEC = Path.of("/usr/bin/sandbox-exec");
    /**
     * macOS's program, library and configuration directories, readable: the system, the command line tools and
     * Xcode, Java and framework installs, {@code /private/etc}, what {@code /bin/sh}, time zones and the dynamic
     * linker read in {@code /private/var}, Homebrew and MacPorts ({@code /opt}, {@code /usr/local}), Nix, devices.
     */
    static final List<String> SYSTEM = List.of("/usr", "/bin", "/sbin", "/System", "/Library/Developer", "/Library/Java",
            "/Library/Frameworks", "/Library/Apple", "/Applications/Xcode.app", "/private/etc", "/private/var/select",
            "/private/var/db/timezone", "/private/var/db/dyld", "/private/var/db/xcode_select_link", "/opt", "/nix", "/dev");
    /**
     * The names of secrets files as a Seatbelt regular expression on a path's last component, built from
     * {@link ProtectedPaths#SECRET_PREFIX} in any case: {@code /\.[Ee][Nn][Vv][^/]*$}.
     */
    static final String SECRET_NAME_REGEX = secretNameRegex();

    private final List<Path> homes;
    private final List<Path> hidden;
    private final List<Path> programs;
    private final Path tmp;

    /**
     * @param home     the user's home directory: denied but for its tool chains (and roots or listed paths inside it)
     * @param tmp      the private temporary directory commands may write (their {@code TMPDIR})
     * @param hidden   more directories denied wherever they are: the agent's configuration directory, the ssh-agent
     *                 socket's directory
     * @param programs program directories outside {@link #SYSTEM} to make readable (the JDK the agent runs on)
     */
    public Seatbelt(Path home, Path tmp, List<Path> hidden, List<Path> programs) {
        this.homes = bothWays(List.of(home));
        this.hidden = bothWays(hidden);
        this.programs = programs.stream().filter(Files::isDirectory).map(Seatbelt::real).filter(p -> this.homes.stream().noneMatch(p::startsWith)).distinct().toList();
        this.tmp = tmp;
    }

    /** A sandbox hiding {@code home} only (tests). */
    public Seatbelt(Path home, Path tmp) {
        this(home, tmp, List.of(), List.of());
    }

    @Override
    public String kind() { return "seatbelt"; }

    @Override
    public SandboxLaunch prepare(String commandLine, Path cwd, SandboxPolicy policy) throws SandboxException {
        try {
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new SandboxException("cannot create the sandbox's temporary directory " + tmp + ": " + e.getMessage());
        }
        return new SandboxLaunch(argv(commandLine, policy), false, () -> { });
    }

    /** The parameters of one profile, in order: each path named once, then referred to by name in the text. */
    private static final class Params {
        final List<String> defs = new ArrayList<>();

        String add(String name, Path value) {
            defs.add("-D" + name + "=" + value);
            return "(param \"" + name + "\")";
        }
    }

    List<String> argv(String commandLine, SandboxPolicy policy) throws SandboxException {
        Params params = new Params();
        String profile = profile(policy, params);
        List<String> a = new ArrayList<>(List.of(SANDBOX_EXEC.toString(), "-p", profile));
        a.addAll(params.defs);
        a.addAll(List.of("--", "/usr/bin/env", "TMPDIR=" + real(tmp), "/bin/bash", "-c", commandLine));
        return a;
    }

    /** The profile text for a policy; every path in it is a parameter added to {@code params}. */
    private String profile(SandboxPolicy policy, Params params) throws SandboxException {
        List<Path> roots = policy.roots().stream().map(Seatbelt::real).toList();
        for (Path r : roots) {
            if (r.getNameCount() == 0) {
                throw new SandboxException("the workspace is the filesystem root, which the sandbox cannot give to a command");
            }
            if (homes.contains(r) || hidden.contains(r)) { // cwd = ~: allowing it would show (and give) the whole home
                throw new SandboxException("the workspace " + r + " is a directory the sandbox hides, so it cannot be shown to the command");
            }
        }
        List<Path> readable = existing(policy.readablePaths());
        List<Path> writable = existing(policy.writablePaths());
        List<Path> shown = new ArrayList<>(readable);
        shown.addAll(writable);
        shown.addAll(roots);

        StringBuilder p = new StringBuilder("""
                (version 1)
                (deny default)
                (allow process-exec)
                (allow process-fork)
                (allow signal (target same-sandbox))
                (allow sysctl-read)
                (allow pseudo-tty)
                (allow file-ioctl (literal "/dev/tty") (literal "/dev/null"))
                (allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.logger"))
                (allow ipc-posix-shm-read-data (ipc-posix-name "apple.shm.notification_center"))
                (allow file-read-metadata)
                """);
        for (String s : SYSTEM) p.append("(allow file-read* (subpath \"").append(s).append("\"))\n");
        for (int i = 0; i < programs.size(); i++) read(p, params.add("PROGRAM_" + i, programs.get(i)));
        String tmpDir = params.add("TMP_DIR", real(tmp));
        read(p, tmpDir);
        List<String> shownParams = new ArrayList<>();
        for (int i = 0; i < readable.size(); i++) shownParams.add(params.add("READ_" + i, readable.get(i)));
        List<String> writableParams = new ArrayList<>();
        for (int i = 0; i < writable.size(); i++) writableParams.add(params.add("WRITE_" + i, writable.get(i)));
        shownParams.addAll(writableParams);
        List<String> rootParams = new ArrayList<>();
        for (int i = 0; i < roots.size(); i++) rootParams.add(params.add("ROOT_" + i, roots.get(i)));
        shownParams.addAll(rootParams);
        shownParams.forEach(s -> read(p, s));
        // the home's contents are denied where a shown path holds it, and what is shown inside it is allowed again
        // after (its attributes stay readable: resolving a path inside it stats every directory on the way)
        for (int i = 0; i < homes.size(); i++) {
            String h = params.add("HOME_" + i, homes.get(i));
            p.append("(deny file-read-data (subpath ").append(h).append("))\n");
            p.append("(deny file-read-xattr (subpath ").append(h).append("))\n");
            for (int j = 0; j < shown.size(); j++) {
                Path s = shown.get(j);
                if (s.startsWith(homes.get(i)) && !s.equals(homes.get(i))) read(p, shownParams.get(j));
            }
        }
        if (policy.toolchains()) {
            int n = 0;
            for (Path h : homes) {
                for (String t : Bubblewrap.TOOLCHAINS) {
                    Path tc = h.resolve(t);
                    if (Files.isDirectory(tc)) read(p, params.add("TOOLCHAIN_" + n++, real(tc)));
                }
            }
        }

        p.append("(allow file-write* (literal \"/dev/null\") (literal \"/dev/tty\") (subpath ").append(tmpDir).append("))\n");
        if (policy.writable()) {
            for (int i = 0; i < roots.size(); i++) {
                p.append("(allow file-write* (require-all (subpath ").append(rootParams.get(i)).append(")");
                for (int j = 0; j < SandboxPolicy.PROTECTED_NAMES.size(); j++) {
                    String prot = params.add("ROOT_" + i + "_PROTECTED_" + j, roots.get(i).resolve(SandboxPolicy.PROTECTED_NAMES.get(j)));
                    p.append(" (require-not (subpath ").append(prot).append("))");
                }
                p.append(" (require-not (regex #\"").append(SECRET_NAME_REGEX).append("\"))))\n");
            }
            for (String w : writableParams) {
                p.append("(allow file-write* (require-all (subpath ").append(w).append(") (require-not (regex #\"")
                        .append(SECRET_NAME_REGEX).append("\"))))\n");
            }
        }

        // last, over every allow above: what stays hidden even inside a shown path
        for (int i = 0; i < hidden.size(); i++) {
            String h = params.add("HIDDEN_" + i, hidden.get(i));
            p.append("(deny file-read* (subpath ").append(h).append("))\n");
            p.append("(deny file-write* (subpath ").append(h).append("))\n");
        }
        // a secrets file's contents: by its name anywhere (also one created later, or deeper than any walk), and by
        // the real path of each that a link named so leads to (its real name may be anything); its name and
        // attributes stay visible, as on Linux, where it reads as empty
        for (String op : List.of("file-read-data", "file-read-xattr")) {
            p.append("(deny ").append(op).append(" (regex #\"").append(SECRET_NAME_REGEX).append("\"))\n");
        }
        Set<Path> secrets = new LinkedHashSet<>();
        for (Path s : shown) if (Files.isDirectory(s)) secrets.addAll(SecretFiles.in(s));
        int k = 0;
        for (Path s : secrets) {
            if (ProtectedPaths.isSecretName(s.getFileName().toString())) continue; // the name rule covers it
            String sp = params.add("SECRET_" + k++, s);
            p.append("(deny file-read-data (literal ").append(sp).append("))\n");
            p.append("(deny file-read-xattr (literal ").append(sp).append("))\n");
        }
        if (policy.network()) p.append("(allow network*)\n");
        return p.toString();
    }

    private static void read(StringBuilder p, String param) {
        p.append("(allow file-read* (subpath ").append(param).append("))\n");
    }

    private static String secretNameRegex() {
        StringBuilder r = new StringBuilder("/");
        for (char c : ProtectedPaths.SECRET_PREFIX.toCharArray()) {
            if (Character.isLetter(c)) {
                r.append('[').append(Character.toUpperCase(c)).append(Character.toLowerCase(c)).append(']');
            } else {
                r.append('\\').append(c);
            }
        }
        return r.append("[^/]*$").toString();
    }

    private static List<Path> existing(List<Path> paths) {
        return paths.stream().filter(Files::exists).map(Seatbelt::real).distinct().toList();
    }

    /** As given and where each really is ({@code /var} is {@code /private/var} on macOS). */
    private static List<Path> bothWays(List<Path> paths) {
        Set<Path> all = new LinkedHashSet<>();
        for (Path p : paths) {
            all.add(p.toAbsolutePath().normalize());
            all.add(real(p));
        }
        return List.copyOf(all);
    }

    /**
     * Seatbelt matches the real path of what is opened: a path reached through a link is named where it really is,
     * also one that does not exist yet (its existing part resolved, as {@code realpath -m}).
     */
    private static Path real(Path p) {
        return Workspace.realPath(p).orElse(p.toAbsolutePath().normalize());
    }
}
