package cn.agentao.agent.cli;

import cn.agentao.agent.door.terminal.OutputFormat;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The terminal command lines read without Picocli, and those left to it (its usage errors, exit 2). */
class TerminalLaunchTest {
    @Test
    void theCommonLinesAreReadDirectly() {
        TerminalLaunch.Options none = TerminalLaunch.parse(new String[0]);
        assertNotNull(none, "plain `agent` starts the chat without Picocli");
        assertNull(none.print());
        assertEquals(OutputFormat.TEXT, none.format());

        TerminalLaunch.Options p = TerminalLaunch.parse(new String[]{"-p", "hi", "--output-format=stream-json", "--mode", "plan",
                "--model", "openai/x", "-r", "abc"});
        assertEquals("hi", p.print());
        assertEquals(OutputFormat.STREAM_JSON, p.format());
        assertEquals("plan", p.mode());
        assertEquals("openai/x", p.model());
        assertEquals("abc", p.resume());

        assertEquals("", TerminalLaunch.parse(new String[]{"--resume", "-p", "x"}).resume(), "--resume without an id: the latest");
        assertTrue(TerminalLaunch.parse(new String[]{"-c", "--print", "x"}).continueLatest());
    }

    @Test
    void anythingDoubtfulGoesToPicocli() {
        for (String[] args : new String[][]{{"-p"}, {"--output-format", "xml"}, {"--mode", "yolo"}, {"-c", "-r", "x"},
                {"--help"}, {"sessions", "list"}, {"--typo"}, {"--log-level", "loud"}, {"--acp"}}) {
            assertNull(TerminalLaunch.parse(args), String.join(" ", args));
        }
    }
}
