package cn.agentao.agent.door.terminal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import cn.agentao.agent.core.content.ContentBlock;

import static org.junit.jupiter.api.Assertions.*;

/** @mentions and the output formats' names. */
class TerminalOptionsTest {
    @TempDir
    Path dir;

    @Test
    void outputFormatsAreSpelledAsOnTheCommandLine() {
        assertEquals(OutputFormat.STREAM_JSON, OutputFormat.parse("stream-json"));
        assertEquals("stream-json", OutputFormat.STREAM_JSON.toString());
        assertThrows(IllegalArgumentException.class, () -> OutputFormat.parse("xml"));
    }

    @Test
    void mentionedTextFilesAreAttachedOnce() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "alpha");
        Files.createDirectories(dir.resolve("src"));
        Files.writeString(dir.resolve("src/b.md"), "beta");
        Files.write(dir.resolve("bin.dat"), new byte[]{(byte) 0xff, (byte) 0xfe, 0});
        List<String> warnings = new ArrayList<>();
        List<ContentBlock> blocks = Mentions.attach("see @a.txt, @src/b.md and @a.txt, not me@example.com nor @missing or @bin.dat",
                dir, warnings::add);
        assertEquals(3, blocks.size(), blocks.toString());
        assertTrue(blocks.get(1) instanceof ContentBlock.Resource r && r.resource().path("text").asText().equals("alpha"));
        assertTrue(blocks.get(2) instanceof ContentBlock.Resource r && r.resource().path("text").asText().equals("beta"));
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("bin.dat"));
    }
}
