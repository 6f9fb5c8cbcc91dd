package cn.agentao.agent.transport;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class MessageWriterTest {
    /** A cancelled tool's worker has an interrupt pending when it withdraws its question: the message must still go. */
    @Test
    void aPendingInterruptDoesNotDropTheMessageAndIsKept() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MessageWriter writer = new MessageWriter(out);
        Thread.currentThread().interrupt();
        try {
            assertTrue(writer.write(Map.of("method", "$/cancel_request")));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
        assertTrue(writer.flush(Duration.ofSeconds(30)));
        assertEquals("{\"method\":\"$/cancel_request\"}\n", out.toString(StandardCharsets.UTF_8));
    }
}
