package cn.agentao.agent.testing;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes server-sent events, one flush per event (fast enough for 20,000-chunk answers, and every chunk reaches
 * the client when written). Waits are spent sending SSE comments, which clients ignore, so a client that went
 * away is noticed within tens of milliseconds: the write then fails with an {@link IOException}.
 */
final class SseOutput {
    private static final byte[] SSE_COMMENT = ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] JSON_WHITESPACE = " ".getBytes(StandardCharsets.UTF_8);
    private static final long KEEP_ALIVE_INTERVAL_MILLIS = 20;

    private final OutputStream out;
    private final byte[] keepAlive;

    private SseOutput(OutputStream raw, byte[] keepAlive) {
        this.out = new BufferedOutputStream(raw, 16 * 1024);
        this.keepAlive = keepAlive;
    }

    /** An event stream; keep-alives are SSE comments. */
    static SseOutput events(OutputStream raw) {
        return new SseOutput(raw, SSE_COMMENT);
    }

    /** A JSON body that is not written yet; keep-alives are leading whitespace, which JSON parsers skip. */
    static SseOutput pendingJson(OutputStream raw) {
        return new SseOutput(raw, JSON_WHITESPACE);
    }

    /** Writes raw text (the JSON body). */
    void write(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Sends one event; {@code event} may be null (OpenAI sends bare {@code data:} lines). */
    void send(String event, String data) throws IOException {
        StringBuilder frame = new StringBuilder(data.length() + 32);
        if (event != null) {
            frame.append("event: ").append(event).append('\n');
        }
        frame.append("data: ").append(data).append("\n\n");
        out.write(frame.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Waits {@code millis}, pinging the client meanwhile so a closed connection surfaces as an IOException. */
    void idle(long millis) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (true) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return;
            }
            Thread.sleep(Math.min(left, KEEP_ALIVE_INTERVAL_MILLIS));
            if (left >= KEEP_ALIVE_INTERVAL_MILLIS) {
                ping();
            }
        }
    }

    /** Pings until the client goes away (the IOException ends the wait). */
    void idleForever() throws IOException, InterruptedException {
        while (true) {
            Thread.sleep(KEEP_ALIVE_INTERVAL_MILLIS);
            ping();
        }
    }

    private void ping() throws IOException {
        out.write(keepAlive);
        out.flush();
    }

    void close() throws IOException {
        out.close();
    }
}
