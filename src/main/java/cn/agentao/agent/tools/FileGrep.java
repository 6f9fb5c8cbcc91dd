package cn.agentao.agent.tools;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Searches one file for grep: read once as bytes (never through a symbolic link), skipped when larger than
 * {@link GrepTool#MAX_FILE_BYTES} or binary (a NUL in the first {@link TextFiles#SNIFF_BYTES}), split into
 * lines as {@link java.io.BufferedReader#readLine()} does ({@code \n}, {@code \r}, {@code \r\n}), each line
 * decoded as UTF-8 with replacement. With a {@link LiteralFinder} only lines holding one of the required
 * literals are decoded and given to the regex. One instance per thread: it keeps its read buffer.
 */
final class FileGrep {
    /** One matching line: its number and its text, cut at {@link GrepTool#MAX_LINE_CHARS}. */
    record Hit(int line, String text) {}

    /** What a file gave: {@code searched} false when skipped (binary, too large, unreadable). */
    record Result(boolean searched, List<Hit> hits) {
        static final Result SKIPPED = new Result(false, List.of());
        /** Searched, no matching line. */
        static final Result NOTHING = new Result(true, List.of());
    }

    private final Matcher matcher;
    private final LiteralFinder finder;
    private final BooleanSupplier stopped;
    private byte[] buffer = new byte[64 * 1024];

    /** @param stopped true once the search is to end (cancelled, interrupted or no longer needed) */
    FileGrep(Pattern pattern, LiteralFinder finder, BooleanSupplier stopped) {
        this.matcher = pattern.matcher("");
        this.finder = finder;
        this.stopped = stopped;
    }

    /**
     * The first {@code limit} matching lines of {@code file}.
     *
     * @throws Stopped when the search is stopped meanwhile, even in the middle of a runaway regex
     */
    Result search(Path file, long expectedSize, int limit) {
        int n = read(file, expectedSize);
        if (n < 0) return Result.SKIPPED;
        byte[] b = buffer;
        if (ByteScan.indexOf(b, 0, Math.min(n, TextFiles.SNIFF_BYTES), (byte) 0) >= 0) return Result.SKIPPED;
        List<Hit> hits = new ArrayList<>();
        if (finder == null) {
            int line = 1;
            for (int start = 0; start < n && hits.size() < limit; line++) {
                if ((line & 1023) == 0) checkStopped();
                int end = lineEnd(b, start, n);
                test(b, start, end, line, hits);
                start = nextLine(b, end, n);
            }
        } else {
            int[] cursor = finder.cursor();
            int line = 1;
            for (int pos = 0; pos < n && hits.size() < limit; line++) {
                int at = finder.next(b, pos, n, cursor);
                if (at < 0) break;
                checkStopped();
                int start = at;
                while (start > pos && b[start - 1] != '\n' && b[start - 1] != '\r') start--;
                line += ByteScan.lineBreaks(b, pos, start, n);
                int end = lineEnd(b, at, n);
                test(b, start, end, line, hits);
                pos = nextLine(b, end, n);
            }
        }
        return new Result(true, hits);
    }

    private void test(byte[] b, int start, int end, int line, List<Hit> hits) {
        String text = new String(b, start, end - start, StandardCharsets.UTF_8);
        if (!matcher.reset(new StoppableText(text, stopped)).find()) return;
        hits.add(new Hit(line, text.length() > GrepTool.MAX_LINE_CHARS
                ? text.substring(0, GrepTool.MAX_LINE_CHARS) + " …" : text));
    }

    private void checkStopped() {
        if (stopped.getAsBoolean()) throw new Stopped();
    }

    private static int lineEnd(byte[] b, int from, int n) {
        int e = ByteScan.indexOfEither(b, from, n, (byte) '\n', (byte) '\r');
        return e < 0 ? n : e;
    }

    private static int nextLine(byte[] b, int end, int n) {
        if (end >= n) return n;
        return b[end] == '\r' && end + 1 < n && b[end + 1] == '\n' ? end + 2 : end + 1;
    }

    /**
     * Reads the file into the buffer; its length, or -1 when unreadable, a link, or too large.
     * {@code expectedSize} is the size seen in the walk, or -1 when not known.
     */
    private int read(Path file, long expectedSize) {
        long max = GrepTool.MAX_FILE_BYTES;
        if (expectedSize > max) return -1;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            int want = (int) Math.max(expectedSize + 1, 16);
            if (buffer.length < want) buffer = new byte[Math.max(want, buffer.length * 2)];
            int n = 0;
            while (true) {
                if (n == buffer.length) {
                    if (n > max) return -1;
                    buffer = java.util.Arrays.copyOf(buffer, (int) Math.min(max + 1, buffer.length * 2L));
                }
                int r = ch.read(ByteBuffer.wrap(buffer, n, buffer.length - n));
                if (r < 0) break;
                n += r;
                // a regular file reads whole: the size seen in the walk, read short of a larger buffer, is its end
                if (n == expectedSize && n < buffer.length) break;
            }
            return n > max ? -1 : n;
        } catch (IOException e) {
            return -1;
        }
    }

    /** Thrown out of a search that was stopped. */
    static final class Stopped extends RuntimeException {
        Stopped() { super("search stopped", null, false, false); }
    }

    /** Text whose reading aborts once the search is stopped, so a catastrophic regex cannot run on. */
    static final class StoppableText implements CharSequence {
        private final String text;
        private final BooleanSupplier stopped;
        private int reads;

        StoppableText(String text, BooleanSupplier stopped) {
            this.text = text;
            this.stopped = stopped;
        }

        @Override
        public char charAt(int index) {
            if ((++reads & 0xffff) == 0 && stopped.getAsBoolean()) throw new Stopped();
            return text.charAt(index);
        }

        @Override
        public int length() { return text.length(); }

        @Override
        public CharSequence subSequence(int start, int end) { return text.subSequence(start, end); }

        @Override
        public String toString() { return text; }
    }
}
