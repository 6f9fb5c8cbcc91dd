package cn.agentao.agent.transport;

import cn.agentao.agent.util.JsonWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one writer of the protocol stream. Callers serialise their message (compact JSON plus a newline) and
 * queue it, in order; one thread writes whatever is queued in a single write and flush. An idle stream sends
 * each message at once; a busy one (a fast model stream) sends many per write instead of waking the client
 * for every line. The queue is bounded, so a client that stops reading slows the producers down.
 */
public final class MessageWriter {
    private static final Logger log = LoggerFactory.getLogger(MessageWriter.class);
    static final int QUEUE_CAPACITY = 4096;

    private final OutputStream out;
    /** byte[] lines, or {@link Deferred} messages serialised when their turn to be written comes. */
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    /** Serialising and queueing under one lock keeps the order in which callers wrote. */
    private final ReentrantLock order = new ReentrantLock();
    private final Thread thread;
    private volatile boolean broken;
    private volatile long written;
    private long queued;

    public MessageWriter(OutputStream out) {
        this.out = out;
        this.thread = Thread.ofPlatform().daemon().name("protocol-writer").start(this::drainLoop);
    }

    /**
     * A message whose content is decided when it is written, not when it is queued: streamed text keeps
     * growing while it waits, so a client that reads slower than the model writes gets fewer, longer chunks.
     */
    @FunctionalInterface
    public interface Deferred {
        Object message();
    }

    /** Queues one message; returns false (and drops it) once the stream has failed, e.g. the client went away. */
    public boolean write(Object message) {
        if (broken) return false;
        byte[] line = serialise(message);
        return line != null && enqueue(line);
    }

    /** Queues a message to be built by {@link Deferred#message()} when the writer reaches it. */
    public boolean writeDeferred(Deferred message) {
        return !broken && enqueue(message);
    }

    private byte[] serialise(Object message) {
        try {
            return JsonWriter.line(message);
        } catch (IOException e) {
            log.error("cannot serialise a protocol message", e);
            return null;
        }
    }

    /**
     * Queues even when the calling thread has an interrupt pending (a cancelled tool's worker withdrawing its
     * question with {@code $/cancel_request} must not lose that message); the interrupt is kept for the caller.
     */
    private boolean enqueue(Object entry) {
        boolean interrupted = false;
        order.lock();
        try {
            while (true) {
                try {
                    if (queue.offer(entry, 50, java.util.concurrent.TimeUnit.MILLISECONDS)) break;
                    if (broken) return false;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            queued++;
            return true;
        } finally {
            order.unlock();
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /** Waits until everything queued so far is written (or the stream failed, or the timeout passed). */
    public boolean flush(Duration timeout) {
        long target;
        order.lock();
        try {
            target = queued;
        } finally {
            order.unlock();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (written < target && !broken) {
            if (System.nanoTime() > deadline) return false;
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return !broken;
    }

    private void drainLoop() {
        List<Object> batch = new ArrayList<>();
        byte[] buffer = new byte[64 * 1024];
        try {
            while (true) {
                batch.add(queue.take());
                queue.drainTo(batch);
                int len = 0;
                for (Object entry : batch) {
                    byte[] line = entry instanceof Deferred d ? serialise(d.message()) : (byte[]) entry;
                    if (line == null) continue;
                    if (len + line.length > buffer.length) {
                        if (len > 0) out.write(buffer, 0, len);
                        len = 0;
                        if (line.length > buffer.length) {
                            out.write(line);
                            continue;
                        }
                    }
                    System.arraycopy(line, 0, buffer, len, line.length);
                    len += line.length;
                }
                if (len > 0) out.write(buffer, 0, len);
                out.flush();
                written += batch.size();
                batch.clear();
            }
        } catch (IOException e) {
            broken = true;
            log.warn("protocol stream closed: {}", e.toString());
            queue.clear();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
