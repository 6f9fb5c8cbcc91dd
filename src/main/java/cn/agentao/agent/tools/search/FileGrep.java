package cn.agentao.agent.tools.search;

import cn.agentao.agent.core.tool.TextFiles;
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
 * literals are decoded and given to the regex. With {@link Libc} the file is read straight into native memory,
 * where libc checks for a NUL and for the literals (most files hold none: nothing more to do); only a file that may
 * match is copied to the heap for the rest. One instance per thread: it keeps its buffers.
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
    private final Libc scan;
    /** The file as read: in native memory with {@link #scan}, else on the heap ({@link #bytes}' own buffer). */
    private ByteBuffer data;
    /** The file's bytes on the heap, where lines are split and decoded. */
    private byte[] bytes;

    /**
     * @param stopped true once the search is to end (cancelled, interrupted or no longer needed)
     * @param scan    libc's scans, or null to do without
     */
    FileGrep(Pattern pattern, LiteralFinder finder, BooleanSupplier stopped, Libc scan) {
        this.matcher = pattern.matcher("");
        this.finder = finder;
        this.stopped = stopped;
        this.scan = scan;
        this.data = allocate(64 * 1024);
        if (bytes == null) bytes = new byte[64 * 1024];
    }

    /**
     * The first {@code limit} matching lines of {@code file}.
     *
     * @throws Stopped when the search is stopped meanwhile, even in the middle of a runaway regex
     */
    Result search(Path file, long expectedSize, int limit) {
        int n = read(file, expectedSize);
        if (n < 0) return Result.SKIPPED;
        int head = Math.min(n, TextFiles.SNIFF_BYTES);
        ByteBuffer direct = scan == null ? null : data;
        int[] cursor = finder == null ? null : finder.cursor();
        if (direct != null) {
            if (scan.indexOf(direct, 0, head, (byte) 0) >= 0) return Result.SKIPPED;
            // most files hold no literal: nothing to copy, split or decode
            if (finder != null && finder.isNative()
                    && (finder.next(null, direct, 0, n, cursor) < 0 || !finder.holdsTheOthers(direct, n))) {
                return Result.NOTHING;
            }
            if (bytes.length < n) bytes = new byte[Math.max(n, bytes.length * 2)];
            direct.get(0, bytes, 0, n);
        } else if (ByteScan.indexOf(bytes, 0, head, (byte) 0) >= 0) {
            return Result.SKIPPED;
        }
        byte[] b = bytes;
        List<Hit> hits = new ArrayList<>();
        if (finder == null) {
            int line = 1;
            for (int start = 0; start < n && hits.size() < limit; line++) {
                if ((line & 1023) == 0) checkStopped();
                int end = lineEnd(b, start, n);
                String text = matching(b, start, end);
                if (text != null) hits.add(hit(line, text));
                start = nextLine(b, end, n);
            }
        } else {
            int line = 1, counted = 0; // the line number at `counted`, a line's start: counted up to a hit only
            for (int pos = 0; pos < n && hits.size() < limit; ) {
                int at = finder.next(b, direct, pos, n, cursor);
                if (at < 0) break;
                checkStopped();
                int start = at;
                while (start > pos && b[start - 1] != '\n' && b[start - 1] != '\r') start--;
                int end = lineEnd(b, at, n);
                String text = matching(b, start, end);
                if (text != null) {
                    line += ByteScan.lineBreaks(b, counted, start, n);
                    counted = start;
                    hits.add(hit(line, text));
                }
                pos = nextLine(b, end, n);
            }
        }
        return new Result(true, hits);
    }

    /** The line in [start, end) decoded, if the regex finds a match in it; else null. */
    private String matching(byte[] b, int start, int end) {
        String text = new String(b, start, end - start, StandardCharsets.UTF_8);
        return matcher.reset(new StoppableText(text, stopped)).find() ? text : null;
    }

    private static Hit hit(int line, String text) {
        return new Hit(line, text.length() > GrepTool.MAX_LINE_CHARS ? text.substring(0, GrepTool.MAX_LINE_CHARS) + " …" : text);
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
     * Reads the file into {@link #data} from its start; its length, or -1 when unreadable, a link, or too large.
     * {@code expectedSize} is the size seen in the walk, or -1 when not known (then asked of the open file).
     */
    private int read(Path file, long expectedSize) {
        long max = GrepTool.MAX_FILE_BYTES;
        if (expectedSize > max) return -1;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            if (expectedSize < 0) expectedSize = ch.size(); // not stat'ed in the walk: one fstat
            if (expectedSize > max) return -1;
            int want = (int) Math.max(expectedSize + 1, 16);
            if (data.capacity() < want) data = allocate(Math.max(want, data.capacity() * 2));
            data.clear();
            while (true) {
                if (!data.hasRemaining()) {
                    if (data.position() > max) return -1;
                    ByteBuffer bigger = allocate((int) Math.min(max + 1, data.capacity() * 2L));
                    data = bigger.put(data.flip());
                }
                if (ch.read(data) < 0) break;
                // a regular file reads whole: the size seen in the walk, read short of a larger buffer, is its end
                if (data.position() == expectedSize && data.hasRemaining()) break;
            }
            return data.position() > max ? -1 : data.position();
        } catch (IOException e) {
            return -1;
        }
    }

    /** A read buffer: direct for {@link #scan}, else a heap one that {@link #bytes} then is. */
    private ByteBuffer allocate(int size) {
        if (scan != null) return ByteBuffer.allocateDirect(size);
        bytes = new byte[size];
        return ByteBuffer.wrap(bytes);
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
