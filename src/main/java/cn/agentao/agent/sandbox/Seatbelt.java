package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The macOS sandbox: {@code /usr/bin/sandbox-exec} with a generated Seatbelt profile. Everything is denied by
 * default; programs may run and fork, read every file except those in the home directory (the workspace roots
 * stay readable), write only to {@code /dev/null}, a private temporary directory and, in workspace-write, the
 * roots minus their protected names; no network rule is granted. Paths reach the profile as parameters
 * ({@code -D}), never spliced into its text.
 */
public final class Seatbelt implements Sandbox {
    public static final Path SANDBOX_EXEC = Path.of("/usr/bin/sandbox-exec");

    private final Path home;
    private final Path tmp;

    /** @param tmp the private temporary directory commands may write (their {@code TMPDIR}) */
    public Seatbelt(Path home, Path tmp) {
        this.home = home.toAbsolutePath().normalize();
        this.tmp = tmp;
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

    List<String> argv(String commandLine, SandboxPolicy policy) {
        List<String> a = new ArrayList<>(List.of(SANDBOX_EXEC.toString(), "-p", profile(policy)));
        a.add("-DHOME_DIR=" + home);
        a.add("-DTMP_DIR=" + tmp);
        for (int i = 0; i < policy.roots().size(); i++) {
            Path r = policy.roots().get(i).toAbsolutePath().normalize();
            a.add("-DROOT_" + i + "=" + r);
            for (int j = 0; j < SandboxPolicy.PROTECTED_NAMES.size(); j++) {
                a.add("-DROOT_" + i + "_PROTECTED_" + j + "=" + r.resolve(SandboxPolicy.PROTECTED_NAMES.get(j)));
            }
        }
        a.addAll(List.of("--", "/usr/bin/env", "TMPDIR=" + tmp, "/bin/bash", "-c", commandLine));
        return a;
    }

    /** The profile text for a policy; the paths are the {@code -D} parameters of {@link #argv}. */
    static String profile(SandboxPolicy policy) {
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
                (allow file-read*)
                (deny file-read* (subpath (param "HOME_DIR")))
                """);
        for (int i = 0; i < policy.roots().size(); i++) {
            p.append("(allow file-read* (subpath (param \"ROOT_").append(i).append("\")))\n");
        }
        p.append("(allow file-write* (literal \"/dev/null\") (literal \"/dev/tty\") (subpath (param \"TMP_DIR\")))\n");
        if (policy.writable()) {
            for (int i = 0; i < policy.roots().size(); i++) {
                p.append("(allow file-write* (require-all (subpath (param \"ROOT_").append(i).append("\"))");
                for (int j = 0; j < SandboxPolicy.PROTECTED_NAMES.size(); j++) {
                    p.append(" (require-not (subpath (param \"ROOT_").append(i).append("_PROTECTED_").append(j).append("\")))");
                }
                p.append(" (require-not (regex #\"/\\.env[^/]*$\"))))\n");
            }
        }
        if (policy.network()) p.append("(allow network*)\n");
        return p.toString();
    }
}
