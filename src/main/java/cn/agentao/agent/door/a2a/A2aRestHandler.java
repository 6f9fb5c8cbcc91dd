package cn.agentao.agent.door.a2a;

import cn.agentao.agent.door.HttpDoorGuard;
import cn.agentao.agent.jsonrpc.ErrorCodes;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP+JSON (REST) binding of A2A 1.0 on the same server as the JSON-RPC endpoint: {@code POST /message:send},
 * {@code POST /message:stream} (SSE), {@code GET /tasks/{id}}, {@code GET /tasks}, {@code POST /tasks/{id}:cancel},
 * {@code GET|POST /tasks/{id}:subscribe} (SSE), the push-config routes under {@code /tasks/{id}/pushNotificationConfigs}
 * and {@code GET /extendedAgentCard}. Requests are 1.0's request objects (the body, or the path and query for
 * {@code GET} and {@code DELETE}); answers are 1.0's shapes; errors are the specification's HTTP status with a
 * {@code google.rpc.Status} body carrying the {@code ErrorInfo}. It speaks only 1.0: a request must say
 * {@code A2A-Version: 1.0} (header or query), as 0.3's REST binding is not served.
 */
final class A2aRestHandler {
    private static final Logger log = LoggerFactory.getLogger(A2aRestHandler.class);
    /** What the answers say they are: the binding's {@code application/json} (requests may also say {@code application/a2a+json}). */
    private static final String MEDIA_TYPE = "application/json";
    private static final Pattern TASK = Pattern.compile("/tasks/([^/:]+)(?::(cancel|subscribe))?");
    private static final Pattern CONFIGS = Pattern.compile("/tasks/([^/:]+)/pushNotificationConfigs(?:/([^/:]+))?");
    /** The query parameters of {@code ListTasks} and {@code GetTask} that are numbers or booleans, not strings. */
    private static final Set<String> NUMBERS = Set.of("pageSize", "historyLength");
    private static final Set<String> BOOLEANS = Set.of("includeArtifacts");

    private final A2aV1Api v1;

    A2aRestHandler(A2aV1Api v1) { this.v1 = v1; }

    /** Whether the path is one of this binding's routes (the server answers 404 for any other but the JSON-RPC one). */
    static boolean serves(String path) {
        return path.equals("/message:send") || path.equals("/message:stream") || path.equals("/tasks")
                || path.startsWith("/tasks/") || path.equals("/extendedAgentCard");
    }

    /** One request; {@code caller} and {@code version} as for {@link JsonRpcHandler#handle}. */
    void handle(HttpExchange exchange, String caller, String version) throws IOException {
        String path = exchange.getRequestURI().getRawPath();
        String method = exchange.getRequestMethod();
        try {
            if (!A2aV1Wire.VERSION.equals(version)) {
                throw new A2aException(A2aException.VERSION_NOT_SUPPORTED, "A2A-Version " + (version == null ? "(none, i.e. 0.3)" : version)
                        + " is not supported on the HTTP+JSON binding, which serves A2A " + A2aV1Wire.VERSION
                        + " only: send A2A-Version: " + A2aV1Wire.VERSION + " (A2A 0.3 is served over JSON-RPC at /)");
            }
            route(exchange, path, method, caller);
        } catch (WrongMethod e) {
            exchange.getResponseHeaders().set("Allow", e.allowed);
            HttpDoorGuard.plain(exchange, 405, "use " + e.allowed + " for " + path + ", not " + method);
        } catch (A2aException e) {
            error(exchange, e.code(), e.getMessage());
        } catch (RuntimeException e) {
            log.error("{} {} failed", method, path, e);
            error(exchange, ErrorCodes.INTERNAL_ERROR, "Internal error: " + e.getClass().getSimpleName());
        }
    }

    private void route(HttpExchange exchange, String path, String method, String caller) throws IOException, A2aException, WrongMethod {
        Matcher configs = CONFIGS.matcher(path);
        Matcher task = TASK.matcher(path);
        if (path.equals("/message:send")) {
            allow(method, "POST");
            respond(exchange, 200, v1.sendMessage(body(exchange), caller));
        } else if (path.equals("/message:stream")) {
            allow(method, "POST");
            A2aService.Started s = v1.sendStreamingMessage(body(exchange), caller);
            JsonRpcHandler.stream(exchange, s.task(), s.start(), A2aV1Wire::streamResponse);
        } else if (path.equals("/tasks")) {
            allow(method, "GET");
            respond(exchange, 200, v1.listTasks(query(exchange, Json.object()), caller));
        } else if (path.equals("/extendedAgentCard")) {
            allow(method, "GET");
            respond(exchange, 200, v1.extendedAgentCard(caller));
        } else if (configs.matches()) {
            ObjectNode request = Json.object().put("taskId", segment(configs.group(1)));
            if (configs.group(2) == null) {
                allow(method, "POST", "GET");
                if (method.equals("POST")) {
                    ObjectNode config = body(exchange);
                    config.set("taskId", request.get("taskId"));
                    respond(exchange, 201, v1.createPushConfig(config, caller));
                } else {
                    respond(exchange, 200, v1.listPushConfigs(query(exchange, request), caller));
                }
            } else {
                allow(method, "GET", "DELETE");
                request.put("id", segment(configs.group(2)));
                if (method.equals("GET")) {
                    respond(exchange, 200, v1.getPushConfig(request, caller));
                } else {
                    v1.deletePushConfig(request, caller);
                    exchange.getResponseHeaders().set("Content-Type", MEDIA_TYPE);
                    exchange.sendResponseHeaders(204, -1);
                }
            }
        } else if (task.matches()) {
            ObjectNode request = Json.object().put("id", segment(task.group(1)));
            String verb = task.group(2);
            if (verb == null) {
                allow(method, "GET");
                respond(exchange, 200, v1.getTask(query(exchange, request), caller));
            } else if (verb.equals("cancel")) {
                allow(method, "POST");
                respond(exchange, 200, v1.cancelTask(request, caller));
            } else {
                allow(method, "POST", "GET"); // the specification's text says POST, its proto GET
                JsonRpcHandler.stream(exchange, v1.subscribeToTask(request, caller), null, A2aV1Wire::streamResponse);
            }
        } else {
            throw new A2aException(ErrorCodes.METHOD_NOT_FOUND, "no such HTTP+JSON route: " + path);
        }
    }

    /** A route asked for with another HTTP method than its own. */
    private static final class WrongMethod extends Exception {
        final String allowed;

        WrongMethod(String allowed) {
            super(null, null, false, false);
            this.allowed = allowed;
        }
    }

    private static void allow(String method, String... allowed) throws WrongMethod {
        for (String a : allowed) if (a.equals(method)) return;
        throw new WrongMethod(String.join(", ", allowed));
    }

    /** The request object in the body: a JSON object (an empty body is an empty object). */
    private static ObjectNode body(HttpExchange exchange) throws IOException, A2aException {
        byte[] body = JsonRpcHandler.readBody(exchange.getRequestBody());
        if (body == null) throw A2aException.invalidParams("request larger than " + JsonRpcHandler.MAX_BODY_BYTES + " bytes");
        if (body.length == 0) return Json.object();
        try {
            JsonNode n = Json.mapper().readTree(body);
            if (n instanceof ObjectNode o) return A2aV1Wire.protoJsonNames(o);
        } catch (JacksonException e) {
            throw new A2aException(ErrorCodes.PARSE_ERROR, "Invalid JSON payload");
        }
        throw A2aException.invalidParams("the request body must be a JSON object");
    }

    /**
     * The query parameters added to {@code into}, in camelCase as the specification names them: numbers and booleans
     * as such where the request has them (a malformed one is kept as text, for the operation to refuse).
     */
    private static ObjectNode query(HttpExchange exchange, ObjectNode into) {
        String q = exchange.getRequestURI().getRawQuery();
        if (q == null) return into;
        for (String pair : q.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            if (name.equalsIgnoreCase("A2A-Version") || into.has(name)) continue; // the path's ids win
            if (NUMBERS.contains(name) && value.matches("-?[0-9]{1,9}")) into.put(name, Integer.parseInt(value));
            else if (BOOLEANS.contains(name) && (value.equals("true") || value.equals("false"))) into.put(name, Boolean.parseBoolean(value));
            else into.put(name, value);
        }
        return into;
    }

    private static String segment(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static void respond(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", MEDIA_TYPE);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    /** An error as an HTTP status and {@code google.rpc.Status} body; in a stream already begun, its last event. */
    private static void error(HttpExchange exchange, int code, String message) throws IOException {
        ObjectNode body = A2aV1Wire.restError(code, message);
        if (exchange.getResponseCode() != -1) {
            var out = exchange.getResponseBody();
            out.write(("event: error\ndata: " + body + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            return;
        }
        respond(exchange, A2aV1Wire.httpStatus(code), body);
    }
}
