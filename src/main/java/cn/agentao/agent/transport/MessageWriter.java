package cn.agentao.agent.transport;

import cn.agentao.agent.protocol.Json;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectWriter;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one writer of the protocol stream: each message is serialised compactly, followed by a newline, and
 * flushed, under a lock so messages never interleave and keep the order in which they were written.
 */
public final class MessageWriter {
    private final OutputStream out;
    private final ObjectWriter writer = Json.MAPPER.writer().without(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    private final ReentrantLock lock = new ReentrantLock();
    /** Reused under the lock: a message and its newline leave in one write. */
    private final Buffer buffer = new Buffer();
    private volatile boolean broken;

    public MessageWriter(OutputStream out) {
        this.out = out;
    }

    /** Writes one message; returns false (and drops it) once the stream has failed, e.g. the client went away. */
    public boolean write(Object message) {
        if (broken) return false;
        lock.lock();
        try {
            buffer.reset();
            writer.writeValue(buffer, message);
            buffer.write('\n');
            out.write(buffer.array(), 0, buffer.size());
            out.flush();
            buffer.shrink();
            return true;
        } catch (IOException e) {
            if (!broken) org.slf4j.LoggerFactory.getLogger(MessageWriter.class).warn("protocol stream closed: {}", e.toString());
            broken = true;
            return false;
        } finally {
            lock.unlock();
        }
    }

    public boolean isBroken() { return broken; }

    private static final class Buffer extends java.io.ByteArrayOutputStream {
        Buffer() { super(8192); }

        byte[] array() { return buf; }

        /** Don't keep a huge buffer after one huge message. */
        void shrink() { if (buf.length > 1 << 20) buf = new byte[8192]; }
    }
}
