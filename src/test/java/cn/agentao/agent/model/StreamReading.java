package cn.agentao.agent.model;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Feeds a stream reader a body in reads of at most {@code bytesPerRead} bytes, as the transport would, and dispatches. */
final class StreamReading {
    private StreamReading() {}

    static ModelResponse read(AttemptHttpClient.StreamReader reader, ProviderKind kind, String sse, int bytesPerRead,
            RecordingListener listener) throws ModelException {
        StreamAttempt attempt = new StreamAttempt(new ModelErrors(
                new ResolvedProvider(kind.configName(), kind, "http://localhost", "k", "test"), "m"));
        InputStream in = new ByteArrayInputStream(sse.getBytes(StandardCharsets.UTF_8)) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, bytesPerRead));
            }
        };
        try { // as AttemptHttpClient does
            reader.read(in, attempt);
        } catch (IOException | RuntimeException e) {
            attempt.failed(e);
        }
        attempt.streamEnded();
        return LangChainModelClient.toModelResponse(attempt.dispatch(listener, Duration.ofSeconds(5)));
    }
}
