package cn.agentao.agent.cli;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code agent login} on a real terminal (tmux, installed by scripts/install-test-tools.sh): the key is typed but
 * never appears on the screen, and ends up in the {@code .env}.
 */
class LoginTerminalIT {
    static final String KEY = "sk-typed-on-a-tty-51c0";

    @TempDir
    Path dir;

    private final String socket = "agent-login-it-" + UUID.randomUUID();

    private String tmux(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "tmux answered");
        return out;
    }

    private String screen() throws IOException, InterruptedException {
        return tmux("capture-pane", "-p", "-S", "-100", "-t", "login");
    }

    /** Waits (up to two minutes: a busy machine starts a JVM slowly) until the screen shows {@code text}. */
    private String awaitScreen(String text) throws Exception {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        String s = "";
        while (System.nanoTime() < end) {
            s = screen();
            if (s.contains(text)) return s;
            Thread.sleep(100);
        }
        throw new AssertionError("the screen never showed \"" + text + "\":\n" + s);
    }

    private void type(String text) throws Exception {
        tmux("send-keys", "-t", "login", "-l", text);
        tmux("send-keys", "-t", "login", "Enter");
    }

    @Test
    void theKeyIsNotEchoed() throws Exception {
        try (FakeModelServer model = FakeModelServer.start()) {
            Path config = dir.resolve("config");
            String command = "env XDG_CONFIG_HOME='" + config + "' '" + AgentProcess.home().resolve("bin/agent")
                    + "' login; echo \"EXIT=$?\"; sleep 600";
            tmux("new-session", "-d", "-s", "login", "-x", "160", "-y", "50", command);
            try {
                awaitScreen("Provider [1-");
                type("6");
                awaitScreen("A short name");
                type("fake");
                awaitScreen("API key (not shown)");
                type(KEY);
                awaitScreen("Base URL");
                type(model.baseUrl());
                awaitScreen("Model (required):"); // after the check, which lists the provider's models
                assertTrue(screen().contains("1) " + FakeModelServer.MODEL), "the listed models are offered:\n" + screen());
                type(""); // no default for an OpenAI-compatible server of one's own: said so, and asked again
                awaitScreen("Model is required");
                type("1");
                String end = awaitScreen("EXIT=");
                assertTrue(end.contains("EXIT=0"), end);
                assertFalse(end.contains(KEY), "the key never shows on the terminal:\n" + end);
                assertTrue(Files.readString(config.resolve("agent/.env")).contains("FAKE_API_KEY='" + KEY + "'"));
                assertTrue(Files.readString(config.resolve("agent/.env")).contains("FAKE_MODEL='" + FakeModelServer.MODEL + "'"),
                        "the model picked by its number");
            } finally {
                tmux("kill-server");
            }
        }
    }
}
