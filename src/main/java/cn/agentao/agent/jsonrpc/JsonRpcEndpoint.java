package cn.agentao.agent.jsonrpc;

import cn.agentao.agent.util.TraceContext;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.JsonTreeParser;
import cn.agentao.agent.transport.LineReader;
import cn.agentao.agent.transport.MessageWriter;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A JSON-RPC 2.0 peer over one NDJSON stream: one reader thread, handlers on virtual threads, one
 * serialised writer, outbound requests correlated by id, and {@code $/cancel_request} both ways.
 * Every inbound request is answered exactly once; notifications never are.
 */
public final class JsonRpcEndpoint {
    public static final String CANCEL_REQUEST = "$/cancel_request";
    private static final Logger log = LoggerFactory.getLogger(JsonRpcEndpoint.class);

    private final LineReader reader;
    private final MessageWriter writer;
    private final MethodTable methods;
    private final long maxMessageBytes;
    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    private final ConcurrentHashMap<String, InFlight> inbound = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, CompletableFuture<JsonNode>> outbound = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * Backpressure: a request dispatched to a worker holds one of these until it is answered; when none is left the
     * reader stops reading until one is, so a client pipelining requests faster than they are answered cannot grow
     * the process (the writer's queue is bounded too). Inline handlers run on the reader and need none; a deferred rest
     * (a prompt's turn, which may wait on the client's answers) holds none, so the reader always comes back to read
     * those answers.
     */
    private final java.util.concurrent.Semaphore workerSlots = new java.util.concurrent.Semaphore(MAX_CONCURRENT_REQUESTS);

    /** How many dispatched requests may run at once before the reader waits. */
    static final int MAX_CONCURRENT_REQUESTS = 64;

    /** A request being handled: answered at most once; {@code cancelRequested} once the peer sent {@code $/cancel_request}. */
    private record InFlight(RequestContext ctx, AtomicBoolean answered, AtomicBoolean cancelRequested) {}

    /** How long a handler that ignores a {@code $/cancel_request} runs before the request is answered anyway. */
    private static final Duration CANCELLED_ANSWER_DEADLINE = Duration.ofSeconds(1);

    public JsonRpcEndpoint(LineReader reader, MessageWriter writer, MethodTable methods, long maxMessageBytes) {
        this.reader = reader;
        this.writer = writer;
        this.methods = methods;
        this.maxMessageBytes = maxMessageBytes;
    }


    public boolean isClosed() { return closed.get(); }

    /** Reads and dispatches until end of input; then cancels what runs and fails what waits on the client. */
    public void run() {
        try {
            LineReader.Line line;
            while ((line = reader.next()) != null) {
                try {
                    handleLine(line);
                } catch (RuntimeException e) {
                    log.error("unexpected failure handling a message", e);
                }
            }
            log.info("input closed");
        } catch (IOException e) {
            log.info("input failed: {}", e.toString());
        } finally {
            close();
        }
    }

    /**
     * Stops taking work: fails every request waiting on the client, cancels every running handler, and
     * waits (bounded) for their answers to be written.
     */
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        JsonRpcException gone = new JsonRpcException(ErrorCodes.INTERNAL_ERROR, "client disconnected");
        outbound.values().forEach(f -> f.completeExceptionally(gone));
        outbound.clear();
        inbound.values().forEach(f -> f.ctx().cancel());
    }

    /** Waits until everything written so far has reached the stream (bounded by {@code timeout}). */
    public boolean flush(Duration timeout) {
        return writer.flush(timeout);
    }

    /** Waits until every inbound request has been answered, or the timeout passes. Returns true if all were. */
    public boolean awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!inbound.isEmpty()) {
            if (System.nanoTime() > deadline) return false;
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------- inbound

    private void handleLine(LineReader.Line line) {
        if (line.oversized()) {
            writeError(NullNode.instance, ErrorCodes.INVALID_REQUEST, "Invalid Request: message of "
                    + line.oversizedBytes() + " bytes exceeds the limit of " + maxMessageBytes
                    + " bytes (--max-message-bytes)", null);
            return;
        }
        JsonNode msg;
        try {
            msg = JsonTreeParser.parse(line.bytes(), 0, line.length());
        } catch (JsonTreeParser.SyntaxError e) {
            writeError(NullNode.instance, ErrorCodes.PARSE_ERROR, "Parse error: " + e.getMessage(), null);
            return;
        }
        if (msg == null || msg.isMissingNode()) {
            writeError(NullNode.instance, ErrorCodes.PARSE_ERROR, "Parse error: empty message", null);
            return;
        }
        if (!msg.isObject()) {
            writeError(NullNode.instance, ErrorCodes.INVALID_REQUEST, "Invalid Request: a message must be a JSON object", null);
            return;
        }
        boolean hasId = msg.has("id");
        JsonNode id = msg.get("id");
        boolean idValid = !hasId || id.isTextual() || id.isIntegralNumber() || id.isNull();
        JsonNode replyId = hasId && idValid ? id : NullNode.instance;
        JsonNode method = msg.get("method");

        if (method == null && (msg.has("result") || msg.has("error"))) {
            handleResponse(msg, id);
            return;
        }
        if (!"2.0".equals(msg.path("jsonrpc").textValue())) {
            writeError(replyId, ErrorCodes.INVALID_REQUEST, "Invalid Request: \"jsonrpc\" must be \"2.0\"", null);
            return;
        }
        if (method == null) {
            writeError(replyId, ErrorCodes.INVALID_REQUEST, "Invalid Request: missing \"method\"", null);
            return;
        }
        if (!method.isTextual()) {
            writeError(replyId, ErrorCodes.INVALID_REQUEST, "Invalid Request: \"method\" must be a string", null);
            return;
        }
        if (!idValid) {
            writeError(NullNode.instance, ErrorCodes.INVALID_REQUEST, "Invalid Request: \"id\" must be a string, an integer or null", null);
            return;
        }
        String name = method.textValue();
        JsonNode params = msg.get("params");
        if (params == null || params.isNull()) params = MissingNode.getInstance();
        if (!params.isMissingNode() && !params.isObject()) {
            if (hasId) writeError(id, ErrorCodes.INVALID_PARAMS, "Invalid params: \"params\" must be an object", null);
            return;
        }
        if (CANCEL_REQUEST.equals(name)) {
            handleCancelRequest(params);
            if (hasId) writeResult(id, Json.object());
            return;
        }
        MethodTable.Entry entry = methods.find(name);
        if (entry == null) {
            if (hasId) writeError(id, ErrorCodes.METHOD_NOT_FOUND, "Method not found: " + name, null);
            else log.debug("ignoring unknown notification {}", name);
            return;
        }
        JsonRpcException refused = entry.gated() ? methods.gate().refuse(name) : null;
        if (refused != null) {
            if (hasId) writeError(id, refused.code(), refused.getMessage(), refused.data());
            return;
        }
        RequestContext ctx = new RequestContext(name, hasId ? id : null, TraceContext.fromParams(params));
        try (TraceContext.Scope trace = TraceContext.open(ctx.traceparent())) {
            if (log.isDebugEnabled()) log.debug("<- {}{}", name, hasId ? " id=" + id : ""); // never params: they may hold prompts
        }
        if (hasId) {
            InFlight previous = inbound.putIfAbsent(key(id), new InFlight(ctx, new AtomicBoolean(), new AtomicBoolean()));
            if (previous != null) {
                writeError(id, ErrorCodes.INVALID_REQUEST, "Invalid Request: id " + id + " is already in use by a running request", null);
                return;
            }
        }
        if (closed.get()) ctx.cancel();
        final JsonNode p = params;
        if (entry.dispatch() == MethodTable.Dispatch.INLINE) {
            invoke(entry.handler(), p, ctx);
        } else {
            workerSlots.acquireUninterruptibly(); // the backpressure: blocks the reader while all slots are taken
            workers.execute(() -> {
                try {
                    invoke(entry.handler(), p, ctx);
                } finally {
                    workerSlots.release();
                }
            });
        }
    }

    /** Runs a handler (and its deferred rest) in the request's trace context. */
    private void invoke(MethodTable.Handler handler, JsonNode params, RequestContext ctx) {
        try (TraceContext.Scope trace = TraceContext.open(ctx.traceparent())) {
            Object result = handler.handle(params, ctx);
            if (result instanceof RequestContext.Deferred deferred) {
                workers.execute(() -> {
                    try (TraceContext.Scope rest = TraceContext.open(ctx.traceparent())) {
                        finish(ctx, deferred.rest().call(), null);
                    } catch (Throwable e) {
                        finish(ctx, null, e);
                    }
                });
            } else {
                finish(ctx, result, null);
            }
        } catch (Throwable e) {
            finish(ctx, null, e);
        }
    }

    private void finish(RequestContext ctx, Object result, Throwable failure) {
        if (ctx.isNotification()) {
            if (failure != null && !(failure instanceof CancelledException)) {
                if (failure instanceof JsonRpcException j) log.debug("notification {} rejected: {}", ctx.method(), j.getMessage());
                else log.warn("notification {} failed", ctx.method(), failure);
            }
            return;
        }
        InFlight inFlight = inbound.get(key(ctx.id()));
        if (inFlight == null || inFlight.ctx() != ctx || !inFlight.answered().compareAndSet(false, true)) return;
        if (log.isDebugEnabled()) {
            log.debug("-> {} id={} answered in {} ms{}", ctx.method(), ctx.id(), ctx.elapsedMillis(), failure == null ? ""
                    : failure instanceof JsonRpcException j ? " with error " + j.code() : " with " + failure.getClass().getSimpleName());
        }
        try {
            if (inFlight.cancelRequested().get() && !(failure instanceof JsonRpcException)) {
                writeError(ctx.id(), ErrorCodes.REQUEST_CANCELLED, "Request cancelled", null);
            } else if (failure == null) {
                writeResult(ctx.id(), result == null ? Json.object() : result);
                for (Runnable action : ctx.takeAfterResponse()) runQuietly(ctx, action);
            } else if (failure instanceof JsonRpcException j) {
                writeError(ctx.id(), j.code(), j.getMessage(), j.data());
            } else if (failure instanceof CancelledException || failure instanceof CancellationException) {
                writeError(ctx.id(), ErrorCodes.REQUEST_CANCELLED, "Request cancelled", null);
            } else {
                log.error("{} failed", ctx.method(), failure);
                writeError(ctx.id(), ErrorCodes.INTERNAL_ERROR, "Internal error: " + failure.getClass().getSimpleName(), null);
            }
        } finally {
            inbound.remove(key(ctx.id()), inFlight);
        }
    }

    private static void runQuietly(RequestContext ctx, Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            log.warn("follow-up of {} failed", ctx.method(), e);
        }
    }

    private void handleCancelRequest(JsonNode params) {
        JsonNode requestId = params.path("requestId");
        if (requestId.isMissingNode()) return;
        InFlight inFlight = inbound.get(key(requestId));
        if (inFlight == null) {
            log.debug("$/cancel_request for {} which is not running", requestId);
            return;
        }
        if (inFlight.answered().get() || !inFlight.cancelRequested().compareAndSet(false, true)) return;
        // Answered once the handler has stopped (finish): for session/prompt that is when the turn has ended, so a
        // prompt sent right after the answer does not find the session still busy. A handler that ignores the cancel
        // is answered after a short deadline anyway: always exactly one answer.
        inFlight.ctx().cancel();
        CompletableFuture.delayedExecutor(CANCELLED_ANSWER_DEADLINE.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            if (inFlight.answered().compareAndSet(false, true)) {
                log.debug("{} id={} did not stop within {} ms of its cancel; answered cancelled", inFlight.ctx().method(), requestId,
                        CANCELLED_ANSWER_DEADLINE.toMillis());
                try {
                    writeError(requestId, ErrorCodes.REQUEST_CANCELLED, "Request cancelled", null);
                } finally {
                    inbound.remove(key(requestId), inFlight);
                }
            }
        });
    }

    private void handleResponse(JsonNode msg, JsonNode id) {
        CompletableFuture<JsonNode> waiting = id != null && id.canConvertToLong() ? outbound.remove(id.asLong()) : null;
        if (waiting == null) {
            log.warn("dropping a response with unknown id {}", id);
            return;
        }
        JsonNode error = msg.get("error");
        if (error != null && !error.isNull()) {
            waiting.completeExceptionally(new JsonRpcException(error.path("code").asInt(ErrorCodes.INTERNAL_ERROR),
                    error.path("message").asText("error"), error.get("data")));
        } else {
            JsonNode result = msg.get("result");
            waiting.complete(result == null ? NullNode.instance : result);
        }
    }

    // ---------------------------------------------------------------- outbound

    /** Sends a notification to the client. */
    public void notify(String method, Object params) {
        writer.write(new Messages.Notification(method, params));
    }

    /** Sends a notification whose params are built when the writer reaches it (see {@link MessageWriter.Deferred}). */
    public void notifyDeferred(String method, java.util.function.Supplier<Object> params) {
        writer.writeDeferred(() -> new Messages.Notification(method, params.get()));
    }

    /** Sends a request to the client; the future completes with its result or a {@link JsonRpcException}. */
    public PendingRequest request(String method, Object params) {
        long id = nextId.incrementAndGet();
        CompletableFuture<JsonNode> future = new CompletableFuture<>();
        if (closed.get()) {
            future.completeExceptionally(new JsonRpcException(ErrorCodes.INTERNAL_ERROR, "client disconnected"));
            return new PendingRequest(id, future);
        }
        outbound.put(id, future);
        if (!writer.write(new Messages.Request(id, method, params))) {
            outbound.remove(id);
            future.completeExceptionally(new JsonRpcException(ErrorCodes.INTERNAL_ERROR, "client disconnected"));
        }
        return new PendingRequest(id, future);
    }

    /**
     * Sends a request and waits for the answer. When {@code cancel} fires first, the client is told with
     * {@code $/cancel_request} and this throws {@link CancelledException}.
     */
    public JsonNode call(String method, Object params, Cancellation cancel)
            throws JsonRpcException, CancelledException {
        PendingRequest pending = request(method, params);
        try (Cancellation.Registration ignored = cancel.onCancel(() -> cancelOutbound(pending))) {
            return pending.future().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof JsonRpcException j) throw j;
            if (e.getCause() instanceof CancelledException c) throw c;
            throw new JsonRpcException(ErrorCodes.INTERNAL_ERROR, e.getCause().toString());
        } catch (InterruptedException e) {
            cancelOutbound(pending);
            Thread.currentThread().interrupt();
            throw new CancelledException();
        } catch (Exception e) {
            throw new JsonRpcException(ErrorCodes.INTERNAL_ERROR, e.toString());
        }
    }

    /** Withdraws one of our requests: the client is sent {@code $/cancel_request}; the waiter sees a cancel. */
    public void cancelOutbound(PendingRequest pending) {
        if (outbound.remove(pending.id(), pending.future())) {
            ObjectNode params = Json.object().put("requestId", pending.id());
            writer.write(new Messages.Notification(CANCEL_REQUEST, params));
            pending.future().completeExceptionally(new CancelledException());
        }
    }

    public record PendingRequest(long id, CompletableFuture<JsonNode> future) {}

    // ---------------------------------------------------------------- writing

    private void writeResult(JsonNode id, Object result) {
        writer.write(new Messages.Result(id, result));
    }

    private void writeError(JsonNode id, int code, String message, JsonNode data) {
        writer.write(new Messages.Error(id, code, message, data));
    }

    /** Ids are strings, integers or null (checked on arrival); the string "1" and the number 1 are different ids. */
    private static String key(JsonNode id) {
        return id.isTextual() ? "s" + id.textValue() : "n" + id.asText();
    }
}
