package cn.agentao.agent.sandbox;

import cn.agentao.agent.config.SandboxSettings;
import cn.agentao.agent.permission.Mode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Which sandbox this process can use, found out once, lazily (on the first command, never at start-up): the
 * {@value #ENV} variable of the real environment ({@code auto}, the default, or {@code none}), then the
 * operating system: bubblewrap on Linux (a trial run tells whether user namespaces are allowed), Seatbelt on
 * macOS, nothing elsewhere.
 */
public final class Sandboxes {
    private static final Logger log = LoggerFactory.getLogger(Sandboxes.class);
    /** {@code auto} (default) or {@code none}: behave as if no sandbox could be had. */
    public static final String ENV = SandboxSettings.ENV;
    private static final long PROBE_TIMEOUT_MS = 10_000;

    /** The outcome of the look: a sandbox, or why there is none. */
    public record Status(Sandbox sandbox, String whyNot) {
        public boolean available() { return sandbox != null; }
    }

    private final SandboxSettings settings;
    private final String os;
    private volatile Status status;

    Sandboxes(SandboxSettings settings, String os) {
        this.settings = settings;
        this.os = os.toLowerCase(Locale.ROOT);
    }

    /**
     * From the process environment ({@code AGENT_SANDBOX}, {@code HOME}, {@code XDG_CONFIG_HOME},
     * {@code SSH_AUTH_SOCK}, {@code TMPDIR}, {@code JAVA_HOME}), without paths of the user's.
     */
    public static Sandboxes fromEnvironment(Map<String, String> env) {
        return new Sandboxes(SandboxSettings.fromEnvironment(env), System.getProperty("os.name", ""));
    }

    /** The sandbox the configuration's section describes, with the paths the user lists in {@code config.json} ({@code sandbox}). */
    public static Sandboxes of(SandboxSettings settings) {
        settings.problems().forEach(p -> log.warn("{}", p));
        return new Sandboxes(settings, System.getProperty("os.name", ""));
    }

    /**
     * The policy a command runs under in {@code mode}, or empty for full-access. {@code forUser}: whoever answers
     * the session's questions speaks for this machine's user, who gets the tool chains and the paths listed in
     * {@code config.json}; otherwise (a space's members) the workspace only.
     */
    public Optional<SandboxPolicy> policy(Mode mode, List<Path> roots, boolean forUser) {
        return SandboxPolicy.forMode(mode, roots)
                .map(p -> forUser ? p.withPaths(settings.readable(), settings.writable()) : p.workspaceOnly());
    }

    /** What {@code AGENT_SANDBOX=none} gives, and what tests without a sandbox use. */
    public static Sandboxes none() {
        return fromEnvironment(Map.of(ENV, "none"));
    }

    public boolean available() { return status().available(); }

    public Optional<Sandbox> sandbox() { return Optional.ofNullable(status().sandbox()); }

    /** Looks once (thread-safe), then answers from memory. */
    public Status status() {
        Status s = status;
        if (s != null) return s;
        synchronized (this) {
            if (status == null) {
                Status looked = look();
                if (Thread.currentThread().isInterrupted()) return looked; // cut short: look again next time
                status = looked;
                if (status.available()) log.debug("sandbox: {}", status.sandbox().kind());
                else log.debug("sandbox: none ({})", status.whyNot());
            }
            return status;
        }
    }

    /** The words shown once per session when commands run without a sandbox: why, what that means, how to enable it. */
    public String notice() {
        String how = os.contains("linux")
                ? " To enable it, install bubblewrap (e.g. `sudo apt-get install bubblewrap`) and allow unprivileged user "
                + "namespaces (e.g. `sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0` on Ubuntu, or an AppArmor "
                + "profile that grants bwrap `userns`), then unset " + ENV + " if it is `none`."
                : os.contains("mac") ? " It needs /usr/bin/sandbox-exec, which macOS normally has; unset " + ENV + " if it is `none`."
                : " There is no sandbox for this operating system yet.";
        return "Commands run without an OS sandbox here (" + status().whyNot() + "), so every command that is not "
                + "provably read-only is asked about (refused in read-only and plan modes)." + how;
    }

    /** The sandbox status for {@code --help}: kind, what is writable in each mode, network. */
    public List<String> helpLines() {
        Status s = status();
        if (!s.available()) {
            return List.of("Sandbox: none (" + s.whyNot() + ").",
                    "  Every command that is not provably read-only is asked about",
                    "  (refused in read-only and plan). To enable it on Linux: install",
                    "  bubblewrap and allow unprivileged user namespaces",
                    "  (sysctl kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu).");
        }
        return List.of("Sandbox: " + s.sandbox().kind() + ", for shell commands in every mode but full-access.",
                "  visible: system program directories, the workspace, tool chain caches",
                "    and config.json's sandbox.readablePaths/writablePaths; nothing else",
                "  network: off; home directory: empty; /tmp: private; .env files: empty",
                "  read-only, plan: nothing else writable",
                "  workspace-write: the session cwd and additionalDirectories writable, except",
                "    " + String.join(", ", SandboxPolicy.PROTECTED_NAMES),
                "  A command that needs more is asked about (\"run it outside the sandbox?\").",
                "  " + ENV + "=none runs commands without it.");
    }

    private Status look() {
        String setting = (settings.setting() == null ? "auto" : settings.setting()).strip().toLowerCase(Locale.ROOT);
        if (setting.equals("none")) return new Status(null, ENV + "=none");
        if (!setting.isEmpty() && !setting.equals("auto")) {
            log.warn("{} must be 'auto' or 'none', not '{}'; using auto", ENV, settings.setting());
        }
        Path home = settings.home();
        List<Path> homes = List.of(home, Path.of(System.getProperty("user.home")));
        List<Path> hidden = new ArrayList<>(List.of(settings.userConfigDir()));
        String sock = settings.sshAuthSock();
        if (sock != null && sock.startsWith("/") && Path.of(sock).getParent() != null) hidden.add(Path.of(sock).getParent());
        if (os.contains("linux")) {
            if (!Files.isExecutable(Bubblewrap.BWRAP)) return new Status(null, "bubblewrap is not installed: no " + Bubblewrap.BWRAP);
            List<Path> programs = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"))));
            String javaHome = settings.javaHome(); // a JDK elsewhere (/srv/jdk-21): its programs, nothing beside them
            if (javaHome != null && javaHome.startsWith("/") && Files.isExecutable(Path.of(javaHome, "bin", "java"))) programs.add(Path.of(javaHome));
            Bubblewrap b = new Bubblewrap(Bubblewrap.BWRAP, homes, hidden, programs);
            String trouble = trial(b);
            return trouble == null ? new Status(b, null) : new Status(null, "bubblewrap cannot start: " + trouble);
        }
        if (os.contains("mac")) {
            if (!Files.isExecutable(Seatbelt.SANDBOX_EXEC)) return new Status(null, "no " + Seatbelt.SANDBOX_EXEC);
            Path tmp = Path.of(settings.tmpDir() == null ? "/tmp" : settings.tmpDir()).resolve("agent-sandbox-" + ProcessHandle.current().pid());
            return new Status(new Seatbelt(home, tmp), null);
        }
        return new Status(null, "no sandbox is known for " + os);
    }

    /** Runs {@code true} in the sandbox; null when it worked, else what went wrong. */
    private static String trial(Sandbox s) {
        try (SandboxLaunch launch = s.prepare("true", Path.of("/"), new SandboxPolicy(List.of(), false, false))) {
            ProcessBuilder pb = new ProcessBuilder(launch.argv()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().clear(); // the trial needs nothing, and no credential goes to a child
            Process p = launch.start(pb);
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readNBytes(4096), StandardCharsets.UTF_8).strip();
            }
            if (!p.waitFor(PROBE_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return "a trial run did not end";
            }
            String failure = launch.failure();
            if (failure != null) return failure;
            return p.exitValue() == 0 ? null : "a trial run exited " + p.exitValue() + (out.isEmpty() ? "" : ": " + out);
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
