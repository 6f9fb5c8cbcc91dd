package cn.agentao.agent.transport;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a byte stream into NDJSON lines. Lines may be very long (tens of MB for pasted images); a line
 * longer than {@code maxLineBytes} is skipped up to its newline and reported as {@link Line#oversized()},
 * so framing survives it.
 */
public final class LineReader {
    /** One framed line: {@code bytes} (without the newline or a trailing CR), or an oversized marker. */
    public record Line(byte[] bytes, int length, long oversizedBytes) {
        public boolean oversized() { return oversizedBytes > 0; }
    }

    private final InputStream in;
    private final long maxLineBytes;
    private final byte[] chunk = new byte[64 * 1024];
    private int chunkPos;
    private int chunkLen;
    private byte[] line = new byte[8 * 1024];
    private int lineLen;

    public LineReader(InputStream in, long maxLineBytes) {
        this.in = in;
        this.maxLineBytes = maxLineBytes;
    }

    /** Returns the next non-blank line, or null at end of stream (a last line without newline counts). */
    public Line next() throws IOException {
        while (true) {
            Line l = nextRaw();
            if (l == null) return null;
            if (l.oversized() || !isBlank(l.bytes, l.length)) return l;
        }
    }

    private Line nextRaw() throws IOException {
        lineLen = 0;
        long dropped = 0;
        while (true) {
            if (chunkPos == chunkLen) {
                chunkLen = in.read(chunk);
                chunkPos = 0;
                if (chunkLen <= 0) {
                    chunkLen = 0;
                    if (dropped > 0) return new Line(null, 0, dropped);
                    return lineLen == 0 ? null : finish();
                }
            }
            int nl = indexOf(chunk, chunkPos, chunkLen, (byte) '\n');
            int end = nl < 0 ? chunkLen : nl;
            int n = end - chunkPos;
            if (dropped > 0 || lineLen + (long) n > maxLineBytes) {
                dropped += lineLen + n;
                lineLen = 0;
            } else {
                append(chunk, chunkPos, n);
            }
            chunkPos = nl < 0 ? chunkLen : nl + 1;
            if (nl >= 0) return dropped > 0 ? new Line(null, 0, dropped) : finish();
        }
    }

    private Line finish() {
        int len = lineLen;
        if (len > 0 && line[len - 1] == '\r') len--;
        Line l = new Line(line, len, 0);
        if (line.length > 1024 * 1024) line = new byte[8 * 1024]; // don't pin a huge buffer after a huge line
        return l;
    }

    private void append(byte[] src, int off, int n) {
        if (lineLen + n > line.length) {
            line = Arrays.copyOf(line, Math.max(lineLen + n, (int) Math.min(Integer.MAX_VALUE - 8, line.length * 2L)));
        }
        System.arraycopy(src, off, line, lineLen, n);
        lineLen += n;
    }

    private static int indexOf(byte[] a, int from, int to, byte b) {
        for (int i = from; i < to; i++) if (a[i] == b) return i;
        return -1;
    }

    private static boolean isBlank(byte[] a, int len) {
        for (int i = 0; i < len; i++) {
            byte b = a[i];
            if (b != ' ' && b != '\t' && b != '\r') return false;
        }
        return true;
    }
}
