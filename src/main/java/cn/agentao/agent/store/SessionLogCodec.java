package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.SessionCorruptException;
import cn.agentao.agent.core.repository.SessionHeader;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.JsonWriter;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The bytes of a session log: line 1 the header, then one record per line, each one JSON object ending in a
 * newline. Reading never stops at damage: a line that is not a record is skipped with a warning, and so is a
 * last line without its newline (a write that was interrupted, or is still in progress).
 */
final class SessionLogCodec {
    private static final int EXCERPT = 80;
    /** One line is one JSON value: two values glued together (a torn line and its successor) are damage. */
    private static final class Lines {
        static final ObjectReader READER = Json.mapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    private SessionLogCodec() {}

    /** One JSON object as one line: compact JSON (which has no raw newlines) and a newline. */
    static byte[] encodeLine(ObjectNode json) {
        try {
            return JsonWriter.line(json); // no mapper: a new session's header is written before any is needed
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write a " + json.path("type").asText() + " record as JSON: "
                    + e.getMessage(), e);
        }
    }

    /** Receives the lines {@link #scanRecords} finds. Line numbers count from 1 (the header). */
    interface Visitor {
        void record(long lineNumber, ObjectNode record);

        void damaged(long lineNumber, String problem);
    }

    /**
     * What reading a log found besides its records.
     *
     * @param completeLength bytes up to and including the last newline; anything after it is a torn line
     * @param completeLines  how many complete lines (header included) those bytes hold
     * @param lastSeq        the highest seq among the records, 0 if there are none
     */
    record Scan(SessionHeader header, List<String> warnings, long completeLength, long completeLines, long lastSeq) {}

    /** The first size of the read buffer; it grows to hold the longest line. */
    private static final int CHUNK = 1 << 16;

    /** Parses a whole log held in memory, handing each record to {@code each}. */
    static Scan scan(String sessionId, byte[] bytes, Consumer<ObjectNode> each) {
        try {
            return scan(sessionId, new ByteArrayInputStream(bytes), each);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not thrown by a byte array
        }
    }

    /**
     * Parses a log as it is read, handing each record to {@code each} in order: memory for the longest line
     * only, whatever the length of the log.
     *
     * @throws SessionCorruptException            if there is no readable header
     * @throws UnsupportedSessionVersionException if the header is of a newer major version
     */
    static Scan scan(String sessionId, InputStream in, Consumer<ObjectNode> each) throws IOException {
        byte[] buf = new byte[CHUNK];
        int len = 0;
        long consumed = 0;
        SessionHeader header = null;
        List<String> warnings = new ArrayList<>();
        long[] lastSeq = {0};
        long[] lines = {0};
        Visitor visitor = new Visitor() {
            @Override
            public void record(long lineNumber, ObjectNode record) {
                long seq = record.get("seq").asLong();
                if (seq <= lastSeq[0]) {
                    warnings.add("line " + lineNumber + ": seq " + seq + " does not follow seq " + lastSeq[0]);
                }
                lastSeq[0] = Math.max(lastSeq[0], seq);
                lines[0] = lineNumber;
                each.accept(record);
            }

            @Override
            public void damaged(long lineNumber, String problem) {
                lines[0] = lineNumber;
                warnings.add("line " + lineNumber + ": " + problem + "; skipped");
            }
        };
        for (boolean eof = false; !eof; ) {
            if (len == buf.length) buf = Arrays.copyOf(buf, buf.length * 2); // a line longer than the buffer
            int n = in.read(buf, len, buf.length - len);
            if (n < 0) eof = true; else len += n;
            int start = 0;
            if (header == null) {
                int headerEnd = indexOfNewline(buf, 0, len);
                if (headerEnd < 0) {
                    if (!eof) continue;
                    throw new SessionCorruptException(sessionId, "session " + sessionId + " cannot be read: "
                            + (len == 0 ? "the file is empty" : "its header line is incomplete"));
                }
                header = SessionHeader.parse(sessionId, parseJson(buf, 0, headerEnd));
                if (!sessionId.equals(header.sessionId())) {
                    warnings.add("the header names session " + header.sessionId() + " but the file is " + sessionId
                            + SessionFiles.LOG_SUFFIX + "; using " + sessionId);
                }
                lines[0] = 1;
                start = headerEnd + 1;
            }
            int end = scanRecords(buf, start, len, lines[0] + 1, visitor);
            consumed += end;
            System.arraycopy(buf, end, buf, 0, len - end);
            len -= end;
        }
        if (len > 0) {
            warnings.add("line " + (lines[0] + 1) + ": incomplete last line (" + len
                    + " bytes without a newline: a write was interrupted or is in progress); skipped");
        }
        return new Scan(header, warnings, consumed, lines[0], lastSeq[0]);
    }

    /**
     * Parses the complete lines (those ending in a newline) of {@code bytes[from, to)}, numbering them from
     * {@code firstLineNumber}, and returns the offset just past the last complete line.
     */
    static int scanRecords(byte[] bytes, int from, int to, long firstLineNumber, Visitor visitor) {
        long lineNumber = firstLineNumber;
        int start = from;
        for (int end; (end = indexOfNewline(bytes, start, to)) >= 0; start = end + 1, lineNumber++) {
            JsonNode line = parseJson(bytes, start, end);
            String problem = problemWith(line, bytes, start, end);
            if (problem == null) {
                visitor.record(lineNumber, (ObjectNode) line);
            } else {
                visitor.damaged(lineNumber, problem);
            }
        }
        return start;
    }

    /** Why the line is not a record, or null if it is one. */
    private static String problemWith(JsonNode line, byte[] bytes, int start, int end) {
        if (line == null) return "not valid JSON (" + excerpt(bytes, start, end) + ")";
        if (!(line instanceof ObjectNode)
                || !line.path("type").isTextual()
                || !line.path("seq").canConvertToLong()
                || !line.path("seq").isIntegralNumber()) {
            return "not a session record, which needs \"seq\" and \"type\" (" + excerpt(bytes, start, end) + ")";
        }
        if (SessionHeader.TYPE.equals(line.get("type").asText())) return "a second header";
        return null;
    }

    /** The JSON value of {@code bytes[start, end)}, or null if it is not exactly one JSON value. */
    private static JsonNode parseJson(byte[] bytes, int start, int end) {
        try {
            JsonNode node = Lines.READER.readTree(bytes, start, end - start);
            return node == null || node.isMissingNode() ? null : node;
        } catch (IOException e) {
            return null;
        }
    }

    private static int indexOfNewline(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n') return i;
        }
        return -1;
    }

    private static String excerpt(byte[] bytes, int start, int end) {
        if (end == start) return "an empty line";
        String text = new String(bytes, start, Math.min(end - start, EXCERPT), StandardCharsets.UTF_8)
                .replaceAll("\\p{Cntrl}", "?");
        return "starts with '" + text + (end - start > EXCERPT ? "...'" : "'");
    }
}
