package cn.agentao.agent.door.terminal;

import cn.agentao.agent.testing.AgentRun;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.testing.TmuxTerminal;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the user approves is what runs, and text reaching a terminal is inert: the real program in a real terminal
 * (tmux) and as a command, with the scripted model proposing hidden commands and answering with escape sequences.
 */
class InertTextIT {
    static final String PROMPT = "› ";
    /** Clears the line it is on, goes back to its start and writes a harmless command over the real one. */
    static final String HIDDEN = "touch ../outside/X #\u001b[2K\u001b[1A\r\u001b[2K\u001b[1BRun `ls -la`\u001b[8m";
    /** Sets the terminal's title, then its clipboard. */
    static final String OSC = "title \u001b]0;PWNED-TITLE\u0007 clip \u001b]52;c;cm0gLXJmIH4=\u0007 csi \u009b2J";

    @TempDir
    Path dir;
    Path ws;
    FakeModelServer model;
    Map<String, String> env;
    TmuxTerminal term;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(dir.resolve("outside"));
        env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("XDG_STATE_HOME", dir.resolve("state").toString());
        env.put("AGENT_SANDBOX", "none"); // without a sandbox an ordinary command asks
    }

    @AfterEach
    void stop() {
        if (term != null) term.close();
        model.close();
    }

    private static String args(String command) {
        return Json.object().put("command", command).toString();
    }

    private static void assertNoRawControls(String what, String text) {
        text.codePoints().forEach(cp -> assertFalse(cp == 0x1b || cp == 0x07 || (cp >= 0x80 && cp <= 0x9f),
                () -> String.format("%s holds a raw U+%04X:%n%s", what, cp, text)));
    }

    @Test
    void theChatShowsTheWholeHiddenCommandBeforeAskingAndNothingRunsOnNo() throws Exception {
        model.enqueue(Script.reply().toolCall("c1", "run_shell_command", args(HIDDEN)).finish("tool_calls"),
                Script.textReply("REJECTED-OK"));
        assumeTrue(TmuxTerminal.available(), "tmux is installed by scripts/install-test-tools.sh");
        term = TmuxTerminal.start(ws, env, 160, 50);
        term.awaitText(PROMPT);
        term.type("list the files");
        term.press("Enter");
        String question = term.awaitText("[y]");
        assertTrue(question.contains("touch ../outside/X"), "the command that will run is on the screen:\n" + question);
        assertTrue(question.contains("touch ../outside/X #<U+001B>[2K<U+001B>[1A<U+000D><U+001B>[2K<U+001B>[1BRun `ls -la`<U+001B>[8m"),
                "the question shows every character of the command:\n" + question);
        term.type("n");
        term.awaitText("REJECTED-OK");
        assertFalse(Files.exists(dir.resolve("outside/X")), "n rejected it");
    }

    @Test
    void escapesInAnAnswerAndInAFileShownByAToolNeverReachTheTerminal() throws Exception {
        Files.writeString(ws.resolve("evil.txt"), "file " + OSC + "\n");
        model.enqueue(Script.reply().toolCall("c1", "run_shell_command", args("cat evil.txt")).finish("tool_calls"),
                Script.reply().text("answer ", OSC, " END-OF-ANSWER\n").finish("stop"));
        assumeTrue(TmuxTerminal.available(), "tmux is installed by scripts/install-test-tools.sh");
        term = TmuxTerminal.start(ws, env, 160, 50, "--mode", "full-access");
        term.awaitText(PROMPT);
        String titleBefore = term.paneTitle();
        Path written = dir.resolve("pty-output");
        term.recordOutput(written);
        term.type("show me");
        term.press("Enter");
        String screen = term.await("the prompt after the answer",
                s -> s.contains("END-OF-ANSWER") && s.substring(s.lastIndexOf("END-OF-ANSWER")).contains(PROMPT));
        String bytes = Files.readString(written, StandardCharsets.UTF_8);
        assertTrue(bytes.contains("END-OF-ANSWER"), "the output was recorded");
        assertEquals(titleBefore, term.paneTitle(), "the terminal's title is unchanged");
        assertFalse(bytes.contains("\u001b]"), "no OSC sequence (title, clipboard) was written to the terminal");
        assertFalse(bytes.contains("\u009b") || bytes.contains("\u009d"), "no 8-bit control was written to the terminal");
        assertTrue(screen.contains("file title <U+001B>]0;PWNED-TITLE<U+0007> clip <U+001B>]52;c;cm0gLXJmIH4=<U+0007> csi <U+009B>2J"),
                "the file's escapes are shown, not obeyed:\n" + screen);
        assertTrue(screen.contains("answer title <U+001B>]0;PWNED-TITLE<U+0007>"), "the answer's too:\n" + screen);
    }

    @Test
    void printShowsTheAnswerAndTheDeniedCommandInert() throws Exception {
        model.enqueue(Script.reply().toolCall("c1", "run_shell_command", args(HIDDEN)).finish("tool_calls"),
                Script.reply().text("answer ", OSC, "\r\n", "over\rwritten\n").finish("stop"));
        AgentRun.Result text = AgentRun.run(ws, env, null, "-p", "go"); // stdout a pipe: inert all the same
        assertEquals(0, text.exit(), text.stderr());
        assertNoRawControls("-p's stdout", text.stdout());
        assertNoRawControls("-p's stderr", text.stderr());
        assertTrue(text.stdout().contains("answer title <U+001B>]0;PWNED-TITLE<U+0007> clip <U+001B>]52;c;cm0gLXJmIH4=<U+0007> csi <U+009B>2J\n"
                + "over<U+000D>written"), text.stdout());
        assertTrue(text.stderr().contains("denied: Run `touch ../outside/X #<U+001B>[2K<U+001B>[1A<U+000D>"), text.stderr());
        assertFalse(Files.exists(dir.resolve("outside/X")));
    }

    @Test
    void sessionsShowAndExportPrintAStoredSessionInertJsonCarriesItExactly() throws Exception {
        model.enqueue(Script.reply().toolCall("c1", "run_shell_command", args(HIDDEN)).finish("tool_calls"),
                Script.reply().text("answer ", OSC, "\n").finish("stop"));
        AgentRun.Result json = AgentRun.run(ws, env, null, "-p", "go", "--output-format", "json");
        assertEquals(0, json.exit(), json.stderr());
        assertNoRawControls("-p's JSON", json.stdout());
        JsonNode result = Json.mapper().readTree(json.stdout());
        assertEquals("answer " + OSC + "\n", result.path("text").asText(), "JSON carries the text exactly, escaped");
        String id = result.path("sessionId").asText();

        AgentRun.Result show = AgentRun.run(ws, env, null, "sessions", "show", id);
        assertEquals(0, show.exit(), show.stderr());
        assertNoRawControls("sessions show", show.stdout());
        assertTrue(show.stdout().contains("<U+001B>]0;PWNED-TITLE<U+0007>"), show.stdout());
        assertTrue(show.stdout().contains("touch ../outside/X #<U+001B>[2K"), "the tool's title shows the whole command:\n" + show.stdout());
        AgentRun.Result markdown = AgentRun.run(ws, env, null, "sessions", "export", "--format", "markdown", id);
        assertNoRawControls("the Markdown export", markdown.stdout());

        model.enqueue(Script.reply().text("more ", OSC, "\n").finish("stop"));
        AgentRun.Result stream = AgentRun.run(ws, env, null, "-p", "again", "--resume", id, "--output-format", "stream-json");
        assertEquals(0, stream.exit(), stream.stderr());
        assertNoRawControls("stream-json", stream.stdout());
        JsonNode last = Json.mapper().readTree(stream.stdoutLines().get(stream.stdoutLines().size() - 1));
        assertEquals("more " + OSC + "\n", last.path("text").asText());
    }
}
