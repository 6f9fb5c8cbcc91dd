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

    record Entry(Handler handler, Dispatch dispatch, boolean needsInitialize) {}

    private final Map<String, Entry> entries = new HashMap<>();

    public MethodTable add(String method, Dispatch dispatch, boolean needsInitialize, Handler handler) {
        entries.put(method, new Entry(handler, dispatch, needsInitialize));
        return this;
    }

    Entry find(String method) { return entries.get(method); }

    public boolean has(String method) { return entries.containsKey(method); }
}
