package cn.agentao.agent.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.HashMap;
import java.util.Map;

/** Maps method names to handlers. Inline handlers run on the reader thread, in arrival order. */
public final class MethodTable {

    @FunctionalInterface
    public interface Handler {
        /** Returns the result (any Jackson-serialisable value) or a {@link RequestContext.Deferred}; throws {@link JsonRpcException} for protocol errors. */
        Object handle(JsonNode params, RequestContext ctx) throws Exception;
    }

    public enum Dispatch {
        /** Runs on the reader thread: must be quick and never block on the client. */
        INLINE,
        /** Runs on its own virtual thread. */
        CONCURRENT
    }

    /**
     * Decides, on the reader thread and in arrival order, whether a gated method may run now (a protocol's
     * handshake, say): null lets it run, an exception is the error answered instead.
     */
    @FunctionalInterface
    public interface Gate {
        JsonRpcException refuse(String method);
    }

    record Entry(Handler handler, Dispatch dispatch, boolean gated) {}

    private final Map<String, Entry> entries = new HashMap<>();
    private volatile Gate gate = method -> null;

    /** {@code gated}: the method runs only when the {@link #gate(Gate) gate} lets it. */
    public MethodTable add(String method, Dispatch dispatch, boolean gated, Handler handler) {
        entries.put(method, new Entry(handler, dispatch, gated));
        return this;
    }

    /** Sets the gate of the gated methods (by default they always run). */
    public MethodTable gate(Gate gate) {
        this.gate = gate;
        return this;
    }

    Entry find(String method) { return entries.get(method); }

    Gate gate() { return gate; }

    public boolean has(String method) { return entries.containsKey(method); }
}
