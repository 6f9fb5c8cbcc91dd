package cn.agentao.agent.connect.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Wraps an SDK client transport to learn the JSON-RPC id of a request, so that a call we abandon (cancelled
 * or timed out) can be followed by {@code notifications/cancelled}, which the SDK does not send by itself.
 * The caller subscribes with {@link #capturing(RequestId)} in its Reactor context; the SDK passes that
 * context down to {@link #sendMessage}, where the id of the first request of the awaited method is recorded
 * (an {@code initialize} sent first under the same context is not).
 */
final class RequestTrackingTransport implements McpClientTransport {
    static final String METHOD_CANCELLED = "notifications/cancelled";
    private static final String CONTEXT_KEY = RequestTrackingTransport.class.getName();

    /** Where the id of the request of a given method sent under a context lands. */
    static final class RequestId {
        private final String method;
        private final AtomicReference<Object> id = new AtomicReference<>();

        RequestId(String method) { this.method = method; }

        Object get() { return id.get(); }
    }

    private final McpClientTransport delegate;

    RequestTrackingTransport(McpClientTransport delegate) {
        this.delegate = delegate;
    }

    McpClientTransport delegate() { return delegate; }

    static Context capturing(RequestId into) {
        return Context.of(CONTEXT_KEY, into);
    }

    /** Tells the server to stop working on a request we no longer wait for (best effort, never throws). */
    void sendCancelled(RequestId request, String reason) {
        Object id = request.get();
        if (id == null) return;
        delegate.sendMessage(new McpSchema.JSONRPCNotification(METHOD_CANCELLED, Map.of("requestId", id, "reason", reason)))
                .subscribe(v -> {}, e -> {});
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        if (!(message instanceof McpSchema.JSONRPCRequest request)) return delegate.sendMessage(message);
        return Mono.deferContextual(ctx -> {
            ctx.<RequestId>getOrEmpty(CONTEXT_KEY).ifPresent(r -> {
                if (r.method.equals(request.method())) r.id.compareAndSet(null, request.id());
            });
            return delegate.sendMessage(message);
        });
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return delegate.connect(handler);
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return delegate.unmarshalFrom(data, typeRef);
    }
}
