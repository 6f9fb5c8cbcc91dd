package cn.agentao.agent.door.a2a;

import cn.agentao.agent.jsonrpc.ErrorCodes;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Locale;
import java.util.Map;

/**
 * The A2A 1.0 JSON shapes (ProtoJSON of {@code lf.a2a.v1}), translated to and from the one task model, which keeps
 * 0.3's shapes: parts without {@code kind} ({@code text}, {@code raw|url} with {@code filename}/{@code mediaType},
 * {@code data}), enum names ({@code TASK_STATE_COMPLETED}, {@code ROLE_AGENT}), stream events wrapped as
 * {@code statusUpdate}/{@code artifactUpdate}/{@code task}/{@code message} without {@code final}, and errors with a
 * {@code google.rpc.ErrorInfo} in {@code error.data}.
 */
final class A2aV1Wire {
    static final String VERSION = "1.0";
    private static final String ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
    private static final Map<Integer, String> REASONS = Map.of(
            A2aException.TASK_NOT_FOUND, "TASK_NOT_FOUND",
            A2aException.TASK_NOT_CANCELABLE, "TASK_NOT_CANCELABLE",
            A2aException.PUSH_NOT_SUPPORTED, "PUSH_NOTIFICATION_NOT_SUPPORTED",
            A2aException.UNSUPPORTED_OPERATION, "UNSUPPORTED_OPERATION",
            A2aException.CONTENT_TYPE_NOT_SUPPORTED, "CONTENT_TYPE_NOT_SUPPORTED",
            -32006, "INVALID_AGENT_RESPONSE",
            -32007, "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            -32008, "EXTENSION_SUPPORT_REQUIRED",
            A2aException.VERSION_NOT_SUPPORTED, "VERSION_NOT_SUPPORTED");

    private A2aV1Wire() {}

    // ---------------------------------------------------------------- field names

    /**
     * A request with its fields under their ProtoJSON names: a parser must accept a field's proto name
     * ({@code task_id}, {@code history_length}) as well as its JSON name ({@code taskId}), and some clients send the
     * former. Renamed are the fields of the request and of its {@code message}, {@code configuration} and
     * {@code authentication} objects; the values, {@code metadata} and {@code data} included, are left as sent. A
     * field sent under both names keeps its JSON name's value.
     */
    static ObjectNode protoJsonNames(ObjectNode request) {
        camelCaseFields(request);
        for (String nested : new String[] {"message", "configuration", "authentication"}) {
            if (request.get(nested) instanceof ObjectNode o) camelCaseFields(o);
        }
        if (request.path("configuration").get("taskPushNotificationConfig") instanceof ObjectNode push) {
            camelCaseFields(push);
            if (push.get("authentication") instanceof ObjectNode auth) camelCaseFields(auth);
        }
        return request;
    }

    private static void camelCaseFields(ObjectNode o) {
        java.util.List<String> snake = new java.util.ArrayList<>();
        o.fieldNames().forEachRemaining(name -> { if (name.indexOf('_') > 0) snake.add(name); });
        for (String name : snake) {
            StringBuilder camel = new StringBuilder();
            boolean upper = false;
            for (char c : name.toCharArray()) {
                if (c == '_') {
                    upper = true;
                } else {
                    camel.append(upper ? Character.toUpperCase(c) : c);
                    upper = false;
                }
            }
            JsonNode value = o.remove(name);
            if (!o.has(camel.toString())) o.set(camel.toString(), value);
        }
    }

    // ---------------------------------------------------------------- enums

    /** 0.3's {@code input-required} as 1.0's {@code TASK_STATE_INPUT_REQUIRED}. */
    static String state(String v03) {
        return "TASK_STATE_" + v03.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /** 1.0's {@code TASK_STATE_INPUT_REQUIRED} as 0.3's {@code input-required}; null for a name that is not a state. */
    static String stateV03(String v1) {
        if (v1 == null || !v1.startsWith("TASK_STATE_") || v1.equals("TASK_STATE_UNSPECIFIED")) return null;
        String s = v1.substring("TASK_STATE_".length()).toLowerCase(Locale.ROOT).replace('_', '-');
        return A2aTask.TERMINAL.contains(s) || A2aTask.INTERRUPTED.contains(s) || s.equals("submitted") || s.equals("working") ? s : null;
    }

    // ---------------------------------------------------------------- model -> 1.0

    /** A task snapshot (0.3 shape) as a 1.0 {@code Task}. */
    static ObjectNode task(JsonNode t) {
        ObjectNode r = Json.object().put("id", t.path("id").asText()).put("contextId", t.path("contextId").asText());
        r.set("status", status(t.path("status")));
        if (t.has("artifacts")) {
            ArrayNode a = r.putArray("artifacts");
            for (JsonNode x : t.path("artifacts")) a.add(artifact(x));
        }
        if (t.has("history")) {
            ArrayNode h = r.putArray("history");
            for (JsonNode m : t.path("history")) h.add(message(m));
        }
        return r;
    }

    static ObjectNode status(JsonNode s) {
        ObjectNode r = Json.object().put("state", state(s.path("state").asText()));
        if (s.path("message").isObject()) r.set("message", message(s.path("message")));
        if (s.path("timestamp").isTextual()) r.put("timestamp", s.path("timestamp").asText());
        return r;
    }

    static ObjectNode message(JsonNode m) {
        ObjectNode r = Json.object().put("messageId", m.path("messageId").asText());
        if (m.path("contextId").isTextual()) r.put("contextId", m.path("contextId").asText());
        if (m.path("taskId").isTextual()) r.put("taskId", m.path("taskId").asText());
        r.put("role", "agent".equals(m.path("role").asText()) ? "ROLE_AGENT" : "ROLE_USER");
        ArrayNode parts = r.putArray("parts");
        for (JsonNode p : m.path("parts")) parts.add(part(p));
        if (m.path("metadata").isObject()) r.set("metadata", m.get("metadata").deepCopy());
        return r;
    }

    private static ObjectNode artifact(JsonNode a) {
        ObjectNode r = Json.object().put("artifactId", a.path("artifactId").asText());
        if (a.path("name").isTextual()) r.put("name", a.path("name").asText());
        ArrayNode parts = r.putArray("parts");
        for (JsonNode p : a.path("parts")) parts.add(part(p));
        return r;
    }

    private static ObjectNode part(JsonNode p) {
        ObjectNode r = Json.object();
        switch (p.path("kind").asText()) {
            case "data" -> r.set("data", p.path("data").deepCopy());
            case "file" -> {
                JsonNode f = p.path("file");
                if (f.path("bytes").isTextual()) r.put("raw", f.path("bytes").asText());
                else r.put("url", f.path("uri").asText());
                if (f.path("name").isTextual()) r.put("filename", f.path("name").asText());
                if (f.path("mimeType").isTextual()) r.put("mediaType", f.path("mimeType").asText());
            }
            default -> r.put("text", p.path("text").asText());
        }
        if (p.path("metadata").isObject()) r.set("metadata", p.get("metadata").deepCopy());
        return r;
    }

    /** A stream event of the task model (a task snapshot, a status or an artifact update) as a 1.0 {@code StreamResponse}. */
    static ObjectNode streamResponse(JsonNode event) {
        ObjectNode r = Json.object();
        switch (event.path("kind").asText()) {
            case "status-update" -> {
                ObjectNode u = r.putObject("statusUpdate").put("taskId", event.path("taskId").asText())
                        .put("contextId", event.path("contextId").asText());
                u.set("status", status(event.path("status")));
            }
            case "artifact-update" -> {
                ObjectNode u = r.putObject("artifactUpdate").put("taskId", event.path("taskId").asText())
                        .put("contextId", event.path("contextId").asText());
                u.set("artifact", artifact(event.path("artifact")));
                u.put("append", event.path("append").asBoolean(false)).put("lastChunk", event.path("lastChunk").asBoolean(false));
            }
            case "message" -> r.set("message", message(event));
            default -> r.set("task", task(event));
        }
        return r;
    }

    // ---------------------------------------------------------------- ListTasks

    static final int DEFAULT_PAGE_SIZE = 50;
    static final int MAX_PAGE_SIZE = 100;

    /**
     * A {@code ListTasksResponse}: the tasks matching {@code contextId}, {@code status} and
     * {@code statusTimestampAfter}, most recently updated first, a page of {@code pageSize} (1…100, default 50) from
     * the {@code pageToken} the previous page gave; {@code historyLength} and {@code includeArtifacts} as in 1.0.
     */
    static ObjectNode listTasks(java.util.List<A2aTask> tasks, JsonNode params) throws A2aException {
        String contextId = params.path("contextId").asText("");
        String status = null;
        if (params.hasNonNull("status") && !params.path("status").asText().equals("TASK_STATE_UNSPECIFIED")) {
            status = stateV03(params.path("status").asText());
            if (status == null) throw A2aException.invalidParams("status must be a TaskState name such as TASK_STATE_WORKING");
        }
        java.time.Instant after = null;
        if (params.hasNonNull("statusTimestampAfter")) {
            try {
                after = java.time.Instant.parse(params.path("statusTimestampAfter").asText());
            } catch (java.time.format.DateTimeParseException e) {
                throw A2aException.invalidParams("statusTimestampAfter must be an RFC 3339 timestamp");
            }
        }
        int pageSize = DEFAULT_PAGE_SIZE;
        if (params.hasNonNull("pageSize")) {
            JsonNode n = params.path("pageSize");
            if (!n.isIntegralNumber() || n.asInt() < 1 || n.asInt() > MAX_PAGE_SIZE) {
                throw A2aException.invalidParams("pageSize must be an integer from 1 to " + MAX_PAGE_SIZE);
            }
            pageSize = n.asInt();
        }
        Integer historyLength = A2aService.historyLength(params);
        boolean artifacts = params.path("includeArtifacts").asBoolean(false);
        java.util.List<ObjectNode> matching = new java.util.ArrayList<>();
        for (A2aTask t : tasks) {
            ObjectNode snap = t.snapshot(historyLength);
            if (!contextId.isEmpty() && !contextId.equals(t.contextId())) continue;
            if (status != null && !status.equals(snap.path("status").path("state").asText())) continue;
            if (after != null && !timestamp(snap).isAfter(after)) continue;
            matching.add(snap);
        }
        matching.sort(java.util.Comparator.comparing(A2aV1Wire::timestamp).reversed()
                .thenComparing(t -> t.path("id").asText()));
        int from = 0;
        String token = params.path("pageToken").asText("");
        if (!token.isEmpty()) {
            // the cursor: the last task of the previous page, by (timestamp, id); the next page starts after it
            String[] cursor = decodeToken(token);
            from = matching.size();
            for (int i = 0; i < matching.size(); i++) {
                ObjectNode t = matching.get(i);
                int c = timestamp(t).compareTo(java.time.Instant.parse(cursor[0]));
                if (c < 0 || (c == 0 && t.path("id").asText().compareTo(cursor[1]) > 0)) {
                    from = i;
                    break;
                }
            }
        }
        int to = Math.min(matching.size(), from + pageSize);
        ObjectNode r = Json.object();
        ArrayNode list = r.putArray("tasks");
        for (ObjectNode snap : matching.subList(from, to)) {
            ObjectNode t = task(snap);
            if (!artifacts) t.remove("artifacts");
            list.add(t);
        }
        String next = "";
        if (to < matching.size()) {
            ObjectNode last = matching.get(to - 1);
            next = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                    (timestamp(last) + " " + last.path("id").asText()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        r.put("nextPageToken", next).put("pageSize", pageSize).put("totalSize", matching.size());
        return r;
    }

    private static java.time.Instant timestamp(JsonNode snapshot) {
        try {
            return java.time.Instant.parse(snapshot.path("status").path("timestamp").asText());
        } catch (java.time.format.DateTimeParseException e) {
            return java.time.Instant.EPOCH;
        }
    }

    private static String[] decodeToken(String token) throws A2aException {
        try {
            String[] c = new String(java.util.Base64.getUrlDecoder().decode(token), java.nio.charset.StandardCharsets.UTF_8).split(" ", 2);
            java.time.Instant.parse(c[0]);
            if (c.length == 2) return c;
        } catch (IllegalArgumentException | java.time.format.DateTimeParseException e) {
            // below
        }
        throw A2aException.invalidParams("pageToken is not one this server gave");
    }

    // ---------------------------------------------------------------- 1.0 -> model

    /**
     * A 1.0 {@code SendMessageRequest} as the 0.3 {@code MessageSendParams} the service reads: the message's role
     * and parts translated, {@code returnImmediately} as {@code blocking}, {@code historyLength} kept.
     */
    static ObjectNode sendParams(JsonNode params) throws A2aException {
        JsonNode m = params.path("message");
        if (!m.isObject()) throw A2aException.invalidParams("\"message\" must be an object");
        ObjectNode msg = Json.object().put("kind", "message");
        String role = m.path("role").asText();
        if (!role.equals("ROLE_USER")) throw A2aException.invalidParams("message.role must be \"ROLE_USER\"");
        msg.put("role", "user");
        for (String f : new String[] {"messageId", "contextId", "taskId"}) if (m.has(f)) msg.set(f, m.get(f).deepCopy());
        if (m.path("metadata").isObject()) msg.set("metadata", m.get("metadata").deepCopy());
        if (!m.path("parts").isArray()) throw A2aException.invalidParams("message.parts must be a non-empty array");
        ArrayNode parts = msg.putArray("parts");
        for (JsonNode p : m.path("parts")) parts.add(partV03(p));
        ObjectNode r = Json.object();
        r.set("message", msg);
        JsonNode c = params.path("configuration");
        ObjectNode conf = r.putObject("configuration");
        conf.put("blocking", !c.path("returnImmediately").asBoolean(false));
        if (c.has("historyLength")) conf.set("historyLength", c.get("historyLength").deepCopy());
        return r;
    }

    private static ObjectNode partV03(JsonNode p) throws A2aException {
        if (!p.isObject()) throw A2aException.invalidParams("a part must be an object");
        ObjectNode r = Json.object();
        if (p.has("text")) {
            r.put("kind", "text").set("text", p.get("text").deepCopy());
        } else if (p.has("data")) {
            r.put("kind", "data").set("data", p.get("data").deepCopy());
        } else if (p.has("raw") || p.has("url")) {
            ObjectNode f = r.put("kind", "file").putObject("file");
            if (p.has("raw")) f.set("bytes", p.get("raw").deepCopy());
            else f.set("uri", p.get("url").deepCopy());
            if (p.path("filename").isTextual()) f.put("name", p.path("filename").asText());
            if (p.path("mediaType").isTextual()) f.put("mimeType", p.path("mediaType").asText());
        } else {
            throw A2aException.invalidParams("a part needs one of \"text\", \"raw\", \"url\" or \"data\"");
        }
        return r;
    }

    // ---------------------------------------------------------------- push notification configs

    /**
     * A 1.0 {@code TaskPushNotificationConfig} ({@code taskId}, {@code id}, {@code url}, {@code token},
     * {@code authentication: {scheme, credentials}}) as the 0.3 set params the service reads, marked so that its
     * webhook gets 1.0 payloads ({@link PushNotifier}).
     */
    static ObjectNode pushConfigParams(JsonNode config) throws A2aException {
        if (!config.path("url").isTextual()) throw A2aException.invalidParams("\"url\" must be a string");
        ObjectNode c = Json.object();
        if (config.path("id").isTextual() && !config.path("id").asText().isEmpty()) c.put("id", config.path("id").asText());
        c.put("url", config.path("url").asText());
        if (config.path("token").isTextual() && !config.path("token").asText().isEmpty()) c.put("token", config.path("token").asText());
        JsonNode auth = config.path("authentication");
        if (auth.isObject()) {
            ObjectNode a = c.putObject("authentication");
            if (auth.path("scheme").isTextual()) a.putArray("schemes").add(auth.path("scheme").asText());
            if (auth.path("credentials").isTextual()) a.put("credentials", auth.path("credentials").asText());
        }
        c.put(PushNotifier.WIRE, VERSION);
        ObjectNode r = Json.object();
        r.set("taskId", config.path("taskId"));
        r.set("pushNotificationConfig", c);
        return r;
    }

    /** A 1.0 request naming a task's push config ({@code taskId}, and {@code id} when {@code withId}) as 0.3's params. */
    static ObjectNode pushConfigRef(JsonNode request, boolean withId) throws A2aException {
        ObjectNode r = Json.object();
        r.set("id", request.path("taskId"));
        if (withId) {
            if (!request.path("id").isTextual() || request.path("id").asText().isEmpty()) {
                throw A2aException.invalidParams("\"id\" (the push notification config's) must be a non-empty string");
            }
            r.put("pushNotificationConfigId", request.path("id").asText());
        }
        return r;
    }

    /** A stored config ({@code {taskId, pushNotificationConfig}}, 0.3's shape) as a 1.0 {@code TaskPushNotificationConfig}. */
    static ObjectNode pushConfig(JsonNode stored) {
        JsonNode c = stored.path("pushNotificationConfig");
        ObjectNode r = Json.object().put("id", c.path("id").asText()).put("taskId", stored.path("taskId").asText())
                .put("url", c.path("url").asText());
        if (c.path("token").isTextual()) r.put("token", c.path("token").asText());
        JsonNode auth = c.path("authentication");
        if (auth.isObject()) {
            ObjectNode a = r.putObject("authentication").put("scheme", auth.path("schemes").path(0).asText(""));
            if (auth.path("credentials").isTextual()) a.put("credentials", auth.path("credentials").asText());
        }
        return r;
    }

    // ---------------------------------------------------------------- errors

    /** The HTTP status of an error code in the HTTP+JSON binding (the specification's table, JSON-RPC's own codes added). */
    static int httpStatus(int code) {
        return switch (code) {
            case A2aException.TASK_NOT_FOUND, ErrorCodes.METHOD_NOT_FOUND -> 404;
            case -32006, ErrorCodes.INTERNAL_ERROR -> 500;
            case ErrorCodes.INVALID_PARAMS, ErrorCodes.INVALID_REQUEST, ErrorCodes.PARSE_ERROR -> 400;
            default -> code <= -32001 && code >= -32009 ? 400 : 500;
        };
    }

    /**
     * An HTTP+JSON error body: {@code google.rpc.Status} as JSON ({@code code} the HTTP status, {@code status} its
     * canonical name, {@code message}, {@code details} with the {@code ErrorInfo} of A2A's own errors).
     */
    static ObjectNode restError(int code, String message) {
        int http = httpStatus(code);
        String status = switch (code) {
            case A2aException.TASK_NOT_FOUND, ErrorCodes.METHOD_NOT_FOUND -> "NOT_FOUND";
            case A2aException.TASK_NOT_CANCELABLE, A2aException.PUSH_NOT_SUPPORTED, A2aException.UNSUPPORTED_OPERATION,
                 -32007, -32008, A2aException.VERSION_NOT_SUPPORTED -> "FAILED_PRECONDITION";
            default -> http == 400 ? "INVALID_ARGUMENT" : "INTERNAL";
        };
        ObjectNode r = Json.object();
        ObjectNode e = r.putObject("error").put("code", http).put("status", status).put("message", message);
        ArrayNode details = e.putArray("details");
        String reason = REASONS.get(code);
        if (reason != null) details.addObject().put("@type", ERROR_INFO).put("reason", reason).put("domain", "a2a-protocol.org");
        return r;
    }

    /** A JSON-RPC error object as 1.0 sends it: A2A's own codes carry a {@code google.rpc.ErrorInfo} in {@code data}. */
    static ObjectNode error(int code, String message) {
        ObjectNode e = Json.object().put("code", code).put("message", message);
        String reason = REASONS.get(code);
        if (reason != null) {
            e.putArray("data").addObject().put("@type", ERROR_INFO).put("reason", reason).put("domain", "a2a-protocol.org");
        }
        return e;
    }
}
