package cn.agentao.agent.jsonrpc;

import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.concurrent.Callable;

/** One inbound call as its handler sees it: the method, the id (null for a notification), its cancellation. */
public final class RequestContext {
    private final String method;
    private final JsonNode id;
    private final String traceparent;
    private final long startedNanos = System.nanoTime();
    private final CancellationSource cancellation = new CancellationSource();
    private java.util.List<Runnable> afterResponse;

    RequestContext(String method, JsonNode id, String traceparent) {
        this.method = method;
        this.id = id;
        this.traceparent = traceparent;
    }

    /** The W3C traceparent from the request's {@code _meta}, or null. */
    public String traceparent() { return traceparent; }

    public String method() { return method; }

    /** The request id, or null for a notification. */
    public JsonNode id() { return id; }

    /** Milliseconds since the request arrived (for the debug log). */
    public long elapsedMillis() { return (System.nanoTime() - startedNanos) / 1_000_000; }

    public boolean isNotification() { return id == null; }

    /** Cancelled by {@code $/cancel_request} or when the connection closes. */
    public Cancellation cancellation() { return cancellation; }

    void cancel() { cancellation.cancel(); }

    /** Runs {@code action} right after the successful response is written (e.g. updates about a new session). */
    public void afterResponse(Runnable action) {
        synchronized (this) {
            if (afterResponse == null) afterResponse = new java.util.ArrayList<>();
            afterResponse.add(action);
        }
    }

    synchronized java.util.List<Runnable> takeAfterResponse() {
        java.util.List<Runnable> actions = afterResponse == null ? java.util.List.of() : afterResponse;
        afterResponse = null;
        return actions;
    }

    /**
     * For handlers that run on the reader thread: returns a marker telling the endpoint to finish the call
     * on a virtual thread. What the inline part did (validation, reserving a turn) is ordered with the
     * messages around it; the rest runs concurrently.
     */
    public static Deferred defer(Callable<Object> rest) { return new Deferred(rest); }

    public record Deferred(Callable<Object> rest) {}
}
