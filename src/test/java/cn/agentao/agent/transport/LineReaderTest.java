package cn.agentao.agent.transport;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class LineReaderTest {
    static List<String> lines(byte[] input, long max) throws IOException {
        LineReader r = new LineReader(new ByteArrayInputStream(input), max);
        List<String> out = new ArrayList<>();
        LineReader.Line l;
        while ((l = r.next()) != null) {
            out.add(l.oversized() ? "<oversized " + l.oversizedBytes() + ">" : new String(l.bytes(), 0, l.length(), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void splitsOnNewlinesDropsCarriageReturnsAndBlankLines() throws IOException {
        assertEquals(List.of("a", "b", "c"), lines("a\r\n\n  \r\nb\nc".getBytes(StandardCharsets.UTF_8), 100));
    }

    @Test
    void multiByteCharactersSurviveChunkBoundaries() throws IOException {
        String s = "é😀".repeat(50_000);
        assertEquals(List.of(s, "x"), lines((s + "\nx\n").getBytes(StandardCharsets.UTF_8), 10_000_000));
    }

    @Test
    void oversizedLinesAreSkippedToTheirNewlineAndReported() throws IOException {
        String big = "y".repeat(200_000);
        assertEquals(List.of("ok", "<oversized 200000>", "after"), lines(("ok\n" + big + "\nafter\n").getBytes(StandardCharsets.UTF_8), 1000));
    }

    @Test
    void readsALineLongerThanItsBufferOneByteAtATime() throws IOException {
        byte[] data = ("z".repeat(300_000) + "\n").getBytes(StandardCharsets.UTF_8);
        InputStream trickle = new InputStream() {
            int i;
            @Override public int read() { return i < data.length ? data[i++] : -1; }
            @Override public int read(byte[] b, int off, int len) { if (i >= data.length) return -1; b[off] = data[i++]; return 1; }
        };
        LineReader r = new LineReader(trickle, 1_000_000);
        assertEquals(300_000, r.next().length());
        assertNull(r.next());
    }
}
