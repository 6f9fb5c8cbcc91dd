package cn.agentao.agent.model;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Server-sent events read as bytes, for the lean stream readers ({@link OpenAiStreamReader},
 * {@link AnthropicStreamReader}): lines end with LF, CR or CRLF (split anywhere across reads), {@code data:} lines
 * of an event are joined with LF, {@code event: error} is flagged, comments and other fields ({@code id:},
 * {@code retry:}) change nothing. One line buffer and one data buffer serve the whole stream: nothing is
 * allocated per event. Each byte is looked at once (a long line arriving in many reads is not scanned again from
 * its start), and neither a line nor an event's data may grow past {@link #MAX_EVENT_BYTES}: past it the stream
 * is refused ({@link TooLarge}) before more is buffered.
 */
final class SseReader {
    /** Receives each event's data. */
    interface Events {
        /**
         * One event: {@code data[0, length)} is its data; {@code errorEvent} when it was named {@code error}.
         * Returns true when the stream is complete (reading stops). The array is reused for the next event.
         */
        boolean event(byte[] data, int length, boolean errorEvent) throws IOException;
    }

    /** The most one line, or one event's data, may hold (see docs/configuration.md). */
    static final int MAX_EVENT_BYTES = 16 * 1024 * 1024;

    /** A line or an event past {@link #MAX_EVENT_BYTES}: the answer is refused. */
    static final class TooLarge extends IOException {
        TooLarge() {
            super("an event of the stream exceeds " + MAX_EVENT_BYTES + " bytes", null);
        }
    }

    private final Events events;
    private final Runnable dataArriving;
    private byte[] data = new byte[1024];
    private int dataLength = -1; // -1: no data line in the current event
    private boolean errorEvent; // the current event is "event: error"

    private SseReader(Events events, Runnable dataArriving) {
        this.events = events;
        this.dataArriving = dataArriving;
    }

    /**
     * Reads {@code in} event by event until {@code events} says the stream is complete (true) or the body ends
     * (false; a last event without its blank line still counts). {@code dataArriving} runs at each read that brings
     * more of a {@code data:} line still incomplete (a long one takes many reads), not for comments.
     */
    static boolean read(InputStream in, Events events, Runnable dataArriving) throws IOException {
        return new SseReader(events, dataArriving).readEvents(in);
    }

    private boolean readEvents(InputStream in) throws IOException {
        byte[] buf = new byte[16 * 1024];
        int start = 0, end = 0;
        int scanned = 0; // buf[start, scanned) holds no line end: the next scan starts at scanned
        boolean eof = false;
        while (true) {
            int nl = indexOfLineEnd(buf, Math.max(start, scanned), end);
            // a \r as the last byte so far may be the first half of \r\n: wait for the next byte
            if (nl < 0 || (buf[nl] == '\r' && nl + 1 == end && !eof)) {
                if (eof) break;
                scanned = nl < 0 ? end : nl;
                if (start > 0) { // keep the partial line at the front
                    System.arraycopy(buf, start, buf, 0, end - start);
                    end -= start;
                    scanned -= start;
                    start = 0;
                }
                if (end > MAX_EVENT_BYTES) throw new TooLarge();
                if (end == buf.length) buf = Arrays.copyOf(buf, Math.min(buf.length * 2, MAX_EVENT_BYTES + 2));
                int n = in.read(buf, end, buf.length - end);
                if (n < 0) eof = true;
                else end += n;
                if (n > 0 && startsWith(buf, start, end, "data:")) dataArriving.run();
                continue;
            }
            int next = buf[nl] == '\r' && nl + 1 < end && buf[nl + 1] == '\n' ? nl + 2 : nl + 1;
            if (line(buf, start, nl)) return true;
            start = next;
            scanned = next;
        }
        if (start < end && line(buf, start, end)) return true; // a last line without its line end
        return dataLength >= 0 && events.event(data, dataLength, errorEvent);
    }

    /** One line of the stream; true when the stream is complete. */
    private boolean line(byte[] buf, int start, int lineEnd) throws IOException {
        if (lineEnd == start) { // blank line: the event is complete
            boolean done = dataLength >= 0 && events.event(data, dataLength, errorEvent);
            dataLength = -1;
            errorEvent = false;
            return done;
        }
        if (startsWith(buf, start, lineEnd, "event:")) {
            int from = start + 6;
            if (from < lineEnd && buf[from] == ' ') from++;
            errorEvent = lineEnd - from == 5 && startsWith(buf, from, lineEnd, "error");
            return false;
        }
        if (startsWith(buf, start, lineEnd, "data:")) {
            int from = start + 5;
            if (from < lineEnd && buf[from] == ' ') from++;
            int len = lineEnd - from;
            int needed = (dataLength < 0 ? 0 : dataLength + 1) + len;
            if (needed > MAX_EVENT_BYTES) throw new TooLarge();
            if (data.length < needed) data = Arrays.copyOf(data, Math.max(needed, data.length * 2));
            if (dataLength >= 0) data[dataLength++] = '\n';
            else dataLength = 0;
            System.arraycopy(buf, from, data, dataLength, len);
            dataLength += len;
        } // comments and other fields (id:, retry:) change nothing here
        return false;
    }

    private static int indexOfLineEnd(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) if (b[i] == '\n' || b[i] == '\r') return i;
        return -1;
    }

    private static boolean startsWith(byte[] b, int from, int to, String prefix) {
        if (to - from < prefix.length()) return false;
        for (int i = 0; i < prefix.length(); i++) if (b[from + i] != prefix.charAt(i)) return false;
        return true;
    }
}
