package cn.agentao.agent.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A real terminal for the interactive chat: {@code bin/agent} in a detached tmux pane of its own tmux server
 * (socket under a temporary directory, so parallel runs never meet), typed into with send-keys and read with
 * capture-pane. Waits poll the screen with generous timeouts; nothing here measures time.
 */
public final class TmuxTerminal implements AutoCloseable {
    public static final Duration WAIT = Duration.ofSeconds(60);

    private final Path socket;
    private final String name = "agent";
    private final Path exitFile;

    private TmuxTerminal(Path socket, Path exitFile) {
        this.socket = socket;
        this.exitFile = exitFile;
    }

    public static boolean available() {
        try {
            return new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /**
     * Starts {@code bin/agent args} in {@code cwd} in a {@code columns}×{@code rows} pane with a clean environment
     * (PATH, HOME, JAVA_HOME, LANG kept; TERM as given in {@code env}, else xterm-256color) plus {@code env}.
     */
    public static TmuxTerminal start(Path cwd, Map<String, String> env, int columns, int rows, String... args) throws IOException, InterruptedException {
        Path tmp = Files.createTempDirectory("agent-tmux");
        Path exit = tmp.resolve("exit-code");
        StringBuilder cmd = new StringBuilder("env -i");
        for (String k : List.of("PATH", "HOME", "JAVA_HOME", "LANG", "TMPDIR")) {
            String v = System.getenv(k);
            if (v != null && !env.containsKey(k)) cmd.append(' ').append(k).append('=').append(quote(v));
        }
        if (!env.containsKey("TERM")) cmd.append(" TERM=xterm-256color");
        cmd.append(" XDG_CONFIG_HOME=").append(quote(tmp.resolve("config").toString()));
        cmd.append(" XDG_DATA_HOME=").append(quote(tmp.resolve("data").toString()));
        cmd.append(" XDG_STATE_HOME=").append(quote(tmp.resolve("state").toString()));
        env.forEach((k, v) -> cmd.append(' ').append(k).append('=').append(quote(v)));
        cmd.insert(0, "stty -g > " + quote(tmp.resolve("tty-before").toString()) + "; ");
        cmd.append(' ').append(quote(AgentProcess.home().resolve("bin/agent").toString()));
        for (String a : args) cmd.append(' ').append(quote(a));
        // the exit code is kept in a file, and the pane stays open so its last screen can be read
        // and the terminal's settings after it, to compare with those before
        cmd.append("; code=$?; stty -g > ").append(quote(tmp.resolve("tty-after").toString()))
                .append("; echo $code > ").append(quote(exit.toString())).append("; sleep 600");
        TmuxTerminal t = new TmuxTerminal(tmp.resolve("tmux.sock"), exit);
        t.tmux("new-session", "-d", "-s", t.name, "-x", String.valueOf(columns), "-y", String.valueOf(rows),
                "-c", cwd.toString(), "bash", "-c", cmd.toString());
        return t;
    }

    private static String quote(String s) { return "'" + s.replace("'", "'\\''") + "'"; }

    private String tmux(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-S", socket.toString(), "-f", "/dev/null"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) throw new IOException("tmux " + String.join(" ", args) + ": " + out);
        return out;
    }

    /** Types {@code text} literally (no key names). */
    public void type(String text) throws IOException, InterruptedException { tmux("send-keys", "-t", name, "-l", text); }

    /** Presses keys by tmux name: Enter, Escape, C-c, C-d, M-Enter, Up, Tab, … */
    public void press(String... keys) throws IOException, InterruptedException {
        List<String> a = new ArrayList<>(List.of("send-keys", "-t", name));
        a.addAll(List.of(keys));
        tmux(a.toArray(String[]::new));
    }

    /** Pastes {@code text} as a terminal paste (bracketed when the program asked for it). */
    public void paste(String text) throws IOException, InterruptedException {
        tmux("set-buffer", "-b", "p", text);
        tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", name);
    }

    /** From now on, every byte the program writes to the terminal is appended to {@code file} as it was written. */
    public void recordOutput(Path file) throws IOException, InterruptedException {
        tmux("pipe-pane", "-O", "-t", name, "cat >> " + quote(file.toString()));
    }

    /** The pane's title, as the program may set it (OSC 0 or 2). */
    public String paneTitle() throws IOException, InterruptedException {
        return tmux("display-message", "-p", "-t", name, "#{pane_title}").strip();
    }

    /** The screen as text (no colours). */
    public String screen() throws IOException, InterruptedException { return tmux("capture-pane", "-p", "-J", "-t", name, "-S", "-2000"); }

    /** The screen with its escape codes (colours and styles). */
    public String screenWithStyles() throws IOException, InterruptedException { return tmux("capture-pane", "-p", "-e", "-J", "-t", name, "-S", "-2000"); }

    /** Waits until the screen satisfies {@code p}; fails with the screen when it does not within {@link #WAIT}. */
    public String await(String what, Predicate<String> p) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String s = screen();
        while (!p.test(s)) {
            if (System.nanoTime() > deadline) throw new AssertionError("waited for " + what + "; the screen:\n" + s);
            Thread.sleep(100);
            s = screen();
        }
        return s;
    }

    public String awaitText(String text) throws IOException, InterruptedException { return await("\"" + text + "\"", s -> s.contains(text)); }

    /** Waits for {@code text} to appear {@code count} times. */
    public String awaitCount(String text, int count) throws IOException, InterruptedException {
        return await(count + "× \"" + text + "\"", s -> s.split(java.util.regex.Pattern.quote(text), -1).length - 1 >= count);
    }

    /** After {@link #awaitExit()}: whether the terminal's settings (stty) are as they were before the program ran. */
    public boolean settingsRestored() throws IOException {
        Path dir = exitFile.getParent();
        return Files.readString(dir.resolve("tty-before")).equals(Files.readString(dir.resolve("tty-after")));
    }

    /** Waits for the program to end; returns its exit code. */
    public int awaitExit() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!Files.exists(exitFile) || Files.readString(exitFile).isBlank()) {
            if (System.nanoTime() > deadline) throw new AssertionError("the agent did not exit; the screen:\n" + screen());
            Thread.sleep(100);
        }
        return Integer.parseInt(Files.readString(exitFile).strip());
    }

    @Override
    public void close() {
        try {
            tmux("kill-server");
        } catch (IOException | InterruptedException e) {
            // already gone
        }
    }

}
