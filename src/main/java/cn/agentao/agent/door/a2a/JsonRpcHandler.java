package cn.agentao.agent.door.a2a;

import cn.agentao.agent.door.HttpDoorGuard;
import cn.agentao.agent.jsonrpc.ErrorCodes;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The JSON-RPC binding of A2A 0.3 and, with {@code A2A-Version: 1.0}, of A2A 1.0 over one HTTP exchange: a single
 * JSON response, or for the streaming methods a Server-Sent Events stream of JSON-RPC responses (the task first,
 * then its status and artifact updates, ending with the update marked {@code final}), their errors included.
 * Errors are A2A's, never a trace.
 */
final class JsonRpcHandler {
    private static final Logger log = LoggerFactory.getLogger(JsonRpcHandler.class);
    static final int MAX_BODY_BYTES = 16 * 1024 * 1024;
    /** A comment line this often keeps proxies from closing a quiet stream and notices a caller that left. */
    private static final long KEEPALIVE_SECONDS = 15;

    private final A2aService service;
    private final A2aV1Api v1;

    JsonRpcHandler(A2aService service, A2aV1Api v1) {
        this.service = service;
        this.v1 = v1;
    }

    /**
     * One JSON-RPC request; {@code caller} names the credential it came with (see {@code A2aServer}), {@code version}
     * the {@code A2A-Version} it asked for (null: none, i.e. 0.3).
     */
    void handle(HttpExchange exchange, String caller, String version) throws IOException {
        byte[] body = readBody(exchange.getRequestBody());
        if (body == null) {
            HttpDoorGuard.plain(exchange, 413, "request larger than " + MAX_BODY_BYTES + " bytes");
            return;
        }
        boolean v1 = A2aV1Wire.VERSION.equals(version);
        // errors in 1.0's shape (with ErrorInfo) for every version but 0.3's: a newer client reads them best
        boolean v1Errors = version != null && !version.equals(V03);
        JsonNode request;
        try {
            request = Json.mapper().readTree(body);
        } catch (JacksonException e) {
            respond(exchange, error(NullNode.instance, ErrorCodes.PARSE_ERROR, "Invalid JSON payload", v1Errors));
            return;
        }
        JsonNode id = request != null && request.has("id") ? request.get("id") : NullNode.instance;
        if (request == null || !request.isObject() || !"2.0".equals(request.path("jsonrpc").asText())
                || !request.path("method").isTextual() || !(id.isTextual() || id.isNumber() || id.isNull())) {
            respond(exchange, error(id.isContainerNode() ? NullNode.instance : id, ErrorCodes.INVALID_REQUEST,
                    "Request payload validation error: a JSON-RPC 2.0 request object is expected", v1Errors));
            return;
        }
        String method = request.path("method").asText();
        JsonNode params = request.path("params");
        boolean streaming = STREAMING.contains(method);
        try {
            if (version != null && !v1 && !version.equals(V03)) {
                throw new A2aException(A2aException.VERSION_NOT_SUPPORTED, "A2A-Version " + version
                        + " is not supported: send A2A-Version: " + A2aV1Wire.VERSION + ", or none (or " + V03 + ") for A2A 0.3");
            }
            if (v1 && params.isMissingNode()) params = Json.object();
            if (!params.isObject()) throw A2aException.invalidParams("params must be an object");
            if (v1) handleV1(exchange, id, method, A2aV1Wire.protoJsonNames((ObjectNode) params), caller);
            else handleV03(exchange, id, method, params, caller);
        } catch (A2aException e) {
            answerError(exchange, error(id, e.code(), e.getMessage(), v1Errors), streaming, v1);
        } catch (RuntimeException e) {
            log.error("{} failed", method, e);
            answerError(exchange, error(id, ErrorCodes.INTERNAL_ERROR, "Internal error: " + e.getClass().getSimpleName(), v1Errors), streaming, v1);
        }
    }

    /**
     * A failed request's answer. A 0.3 streaming method's error is an event stream too (the 0.3 suite asks for it);
     * a 1.0 one's is the plain JSON-RPC error while no event has gone out (the request was refused: bad params, an
     * unknown or ended task), as 1.0 clients and the 1.0 suite read it, and the stream's last event once it began.
     */
    private static void answerError(HttpExchange exchange, ObjectNode error, boolean streaming, boolean v1) throws IOException {
        if (streaming && (!v1 || exchange.getResponseCode() != -1)) streamError(exchange, error);
        else respond(exchange, error);
    }

    /** The methods whose answer is an event stream (0.3's and 1.0's). */
    private static final java.util.Set<String> STREAMING = java.util.Set.of("message/stream", "tasks/resubscribe",
            "SendStreamingMessage", "SubscribeToTask");
    private static final String V03 = "0.3";

    private void handleV03(HttpExchange exchange, JsonNode id, String method, JsonNode params, String caller) throws IOException, A2aException {
        switch (method) {
            case "message/send" -> {
                A2aService.Started s = service.send(params, caller);
                boolean blocking = params.path("configuration").path("blocking").asBoolean(true);
                if (blocking) awaitPause(s);
                else s.start().run();
                respond(exchange, result(id, s.task().snapshot(A2aService.historyLength(params.path("configuration")))));
            }
            case "message/stream" -> {
                A2aService.Started s = service.send(params, caller);
                stream(exchange, s.task(), s.start(), e -> result(id, e));
            }
            case "tasks/resubscribe" -> stream(exchange, service.task(params, caller), null, e -> result(id, e));
            case "tasks/get" -> respond(exchange, result(id, service.get(params, caller)));
            case "tasks/cancel" -> respond(exchange, result(id, service.cancel(params, caller)));
            case "tasks/pushNotificationConfig/set" -> respond(exchange, result(id, service.setPushConfig(params, caller)));
            case "tasks/pushNotificationConfig/get" -> respond(exchange, result(id, service.getPushConfig(params, caller)));
            case "tasks/pushNotificationConfig/list" -> respond(exchange, result(id, service.listPushConfigs(params, caller)));
            case "tasks/pushNotificationConfig/delete" -> {
                service.deletePushConfig(params, caller);
                respond(exchange, result(id, NullNode.instance));
            }
            case "agent/getAuthenticatedExtendedCard" -> throw new A2aException(-32007,
                    "Authenticated Extended Card is not configured");
            default -> throw new A2aException(ErrorCodes.METHOD_NOT_FOUND, "Method not found: " + method);
        }
    }

    /** The A2A 1.0 JSON-RPC methods: the operations of {@link A2aV1Api}, their params the 1.0 request objects. */
    private void handleV1(HttpExchange exchange, JsonNode id, String method, JsonNode params, String caller) throws IOException, A2aException {
        switch (method) {
            case "SendMessage" -> respond(exchange, result(id, v1.sendMessage(params, caller)));
            case "SendStreamingMessage" -> {
                A2aService.Started s = v1.sendStreamingMessage(params, caller);
                stream(exchange, s.task(), s.start(), e -> result(id, A2aV1Wire.streamResponse(e)));
            }
            case "SubscribeToTask" -> stream(exchange, v1.subscribeToTask(params, caller), null, e -> result(id, A2aV1Wire.streamResponse(e)));
            case "GetTask" -> respond(exchange, result(id, v1.getTask(params, caller)));
            case "ListTasks" -> respond(exchange, result(id, v1.listTasks(params, caller)));
            case "CancelTask" -> respond(exchange, result(id, v1.cancelTask(params, caller)));
            case "CreateTaskPushNotificationConfig" -> respond(exchange, result(id, v1.createPushConfig(params, caller)));
            case "GetTaskPushNotificationConfig" -> respond(exchange, result(id, v1.getPushConfig(params, caller)));
            case "ListTaskPushNotificationConfigs", "ListTaskPushNotificationConfig" ->
                    respond(exchange, result(id, v1.listPushConfigs(params, caller)));
            case "DeleteTaskPushNotificationConfig" -> {
                v1.deletePushConfig(params, caller);
                respond(exchange, result(id, Json.object()));
            }
            case "GetExtendedAgentCard" -> respond(exchange, result(id, v1.extendedAgentCard(caller)));
            default -> throw new A2aException(ErrorCodes.METHOD_NOT_FOUND, "Method not found: " + method
                    + (method.contains("/") ? " (an A2A 0.3 method: send it without the A2A-Version header)" : ""));
        }
    }

    /** Starts the task and waits until it ends or pauses for input (a blocking message/send). */
    static void awaitPause(A2aService.Started s) {
        CountDownLatch paused = new CountDownLatch(1);
        Consumer<ObjectNode> listener = e -> { if (e.path("final").asBoolean(false)) paused.countDown(); };
        if (!s.task().subscribe(listener, false)) return;
        s.start().run();
        try {
            paused.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            s.task().unsubscribe(listener);
        }
    }

    /**
     * The task, then its events until the final one, as SSE, each framed by {@code frame} (a JSON-RPC response, or
     * HTTP+JSON's bare {@code StreamResponse}); {@code start} runs once the stream listens.
     */
    static void stream(HttpExchange exchange, A2aTask task, Runnable start,
                       java.util.function.Function<ObjectNode, JsonNode> frame) throws IOException {
        BlockingQueue<ObjectNode> queue = new LinkedBlockingQueue<>();
        Consumer<ObjectNode> listener = queue::add;
        boolean live = task.subscribe(listener, true);
        OutputStream out = openStream(exchange);
        try {
            if (start != null) start.run();
            while (true) {
                ObjectNode event = queue.poll(KEEPALIVE_SECONDS, TimeUnit.SECONDS);
                if (event == null) {
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    continue;
                }
                out.write(("data: " + frame.apply(event) + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                boolean last = event.path("final").asBoolean(false)
                        || ("task".equals(event.path("kind").asText()) && (!live || A2aTask.TERMINAL.contains(event.path("status").path("state").asText())));
                if (last) break;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            log.debug("stream of task {} ended: the caller left", task.id());
        } finally {
            task.unsubscribe(listener);
        }
    }

    private static OutputStream openStream(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.sendResponseHeaders(200, 0);
        return exchange.getResponseBody();
    }

    /** A streaming method's error: an event stream of the one JSON-RPC error, as its events would have come. */
    private static void streamError(HttpExchange exchange, ObjectNode response) throws IOException {
        // a failure in the middle of a stream ends it with the error; before it began, the error is the whole stream
        OutputStream out = exchange.getResponseCode() == -1 ? openStream(exchange) : exchange.getResponseBody();
        out.write(("data: " + response + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    static byte[] readBody(InputStream in) throws IOException {
        byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
        return body.length > MAX_BODY_BYTES ? null : body;
    }

    private static void respond(HttpExchange exchange, ObjectNode response) throws IOException {
        byte[] body = response.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
    }

    private static ObjectNode result(JsonNode id, JsonNode result) {
        ObjectNode r = Json.object().put("jsonrpc", "2.0");
        r.set("id", id);
        r.set("result", result);
        return r;
    }

    private static ObjectNode error(JsonNode id, int code, String message, boolean v1) {
        ObjectNode r = Json.object().put("jsonrpc", "2.0");
        r.set("id", id);
        if (v1) r.set("error", A2aV1Wire.error(code, message));
        else r.putObject("error").put("code", code).put("message", message);
        return r;
    }
}
