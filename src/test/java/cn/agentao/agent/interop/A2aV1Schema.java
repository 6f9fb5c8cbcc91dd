package cn.agentao.agent.interop;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Checks what we send on the A2A 1.0 wire against the pinned 1.0 schema (issue #28): {@code a2a/a2a-v1.schema.json},
 * derived from the specification's {@code a2a.proto} at v1.0.1 (how: its {@code $comment} and
 * {@code scripts/a2a-proto-to-schema.py}), and {@code a2a/a2a-v1-envelopes.schema.json}, the JSON-RPC and HTTP+JSON
 * envelopes and error bodies the specification's text defines. Each check fails the test with every violation and
 * the message that broke it.
 */
public final class A2aV1Schema {
    /** The proto messages each 1.0 JSON-RPC method takes (params) and answers (result, or each stream event). */
    private static final Map<String, String[]> METHODS = Map.ofEntries(
            Map.entry("SendMessage", new String[] {"SendMessageRequest", "SendMessageResponse"}),
            Map.entry("SendStreamingMessage", new String[] {"SendMessageRequest", "StreamResponse"}),
            Map.entry("GetTask", new String[] {"GetTaskRequest", "Task"}),
            Map.entry("ListTasks", new String[] {"ListTasksRequest", "ListTasksResponse"}),
            Map.entry("CancelTask", new String[] {"CancelTaskRequest", "Task"}),
            Map.entry("SubscribeToTask", new String[] {"SubscribeToTaskRequest", "StreamResponse"}),
            Map.entry("CreateTaskPushNotificationConfig", new String[] {"TaskPushNotificationConfig", "TaskPushNotificationConfig"}),
            Map.entry("GetTaskPushNotificationConfig", new String[] {"GetTaskPushNotificationConfigRequest", "TaskPushNotificationConfig"}),
            Map.entry("ListTaskPushNotificationConfigs", new String[] {"ListTaskPushNotificationConfigsRequest", "ListTaskPushNotificationConfigsResponse"}),
            Map.entry("DeleteTaskPushNotificationConfig", new String[] {"DeleteTaskPushNotificationConfigRequest", "Empty"}),
            Map.entry("GetExtendedAgentCard", new String[] {"GetExtendedAgentCardRequest", "AgentCard"}));
    /**
     * The card's members for 0.3 clients (one card both generations read, issue #28): 1.0 readers ignore them;
     * everything else on the card is checked as a 1.0 {@code AgentCard}.
     */
    public static final List<String> CARD_FIELDS_OF_03 = List.of("url", "preferredTransport", "additionalInterfaces", "protocolVersion");

    private static final ObjectNode MESSAGES = load("a2a/a2a-v1.schema.json");
    private static final ObjectNode ENVELOPES = load("a2a/a2a-v1-envelopes.schema.json");
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final Map<String, Schema> SCHEMAS = new ConcurrentHashMap<>();

    private A2aV1Schema() {}

    /** {@code node} is a valid ProtoJSON {@code message} (a name from the proto, e.g. {@code Task}). */
    public static void assertMessage(String message, JsonNode node, String what) {
        check(MESSAGES, message, node, what);
    }

    /** A JSON-RPC response of a 1.0 {@code method}: its envelope, and its result as the method's response message. */
    public static void assertRpcResponse(String method, JsonNode response) {
        if (response.has("error")) {
            assertRpcError(response);
            return;
        }
        check(ENVELOPES, "JsonRpcResult", response, method + " response");
        String result = answerOf(method);
        if (result.equals("Empty") && response.path("result").isNull()) return; // google.protobuf.Empty as null
        check(MESSAGES, result, response.path("result"), method + " result");
    }

    /** A JSON-RPC error as 1.0 sends it; A2A's own codes (-32001 to -32099) must carry a {@code google.rpc.ErrorInfo}. */
    public static void assertRpcError(JsonNode response) {
        int code = response.path("error").path("code").asInt();
        check(ENVELOPES, code <= -32001 && code >= -32099 ? "A2aJsonRpcError" : "JsonRpcError", response, "JSON-RPC error");
    }

    /** A JSON-RPC request our client sends: its envelope and its params as the method's request message. */
    public static void assertRpcRequest(JsonNode request) {
        check(ENVELOPES, "JsonRpcRequest", request, "JSON-RPC request");
        String method = request.path("method").asText();
        String[] types = METHODS.get(method);
        if (types == null) fail("not a method of A2A 1.0: " + method + " in " + request);
        check(MESSAGES, types[0], request.path("params"), method + " params");
    }

    /** One SSE {@code data} payload of a 1.0 stream: on JSON-RPC wrapped in a response, on HTTP+JSON bare. */
    public static void assertRpcStreamEvent(String method, JsonNode event) {
        assertRpcResponse(method, event);
    }

    /** An HTTP+JSON error body ({@code google.rpc.Status}); 1.0 requires its {@code ErrorInfo} for A2A's own errors. */
    public static void assertRestError(JsonNode body) {
        check(ENVELOPES, "RestError", body, "HTTP+JSON error");
    }

    /** The agent card: a 1.0 {@code AgentCard} once the members for 0.3 clients ({@link #CARD_FIELDS_OF_03}) are set aside. */
    public static void assertCard(JsonNode card) {
        ObjectNode v1 = card.deepCopy();
        v1.remove(CARD_FIELDS_OF_03);
        check(MESSAGES, "AgentCard", v1, "agent card");
    }

    /** The message a 1.0 method answers with. */
    public static String answerOf(String method) {
        String[] types = METHODS.get(method);
        if (types == null) fail("not a method of A2A 1.0: " + method);
        return types[1];
    }

    private static void check(ObjectNode document, String def, JsonNode node, String what) {
        if (!document.path("$defs").has(def)) fail("no definition " + def + " in the pinned schema");
        Schema schema = SCHEMAS.computeIfAbsent(document.path("$id").asText() + "#" + def, k -> {
            ObjectNode root = document.deepCopy();
            root.put("$ref", "#/$defs/" + def);
            return REGISTRY.getSchema(root);
        });
        List<Error> errors = schema.validate(node);
        if (!errors.isEmpty()) {
            fail(what + " is not a valid A2A 1.0 " + def + ": " + errors.stream().map(Error::toString).toList() + "\nin " + node);
        }
    }

    private static ObjectNode load(String resource) {
        try (InputStream in = A2aV1Schema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) throw new IllegalStateException("missing test resource " + resource);
            return (ObjectNode) Json.mapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
