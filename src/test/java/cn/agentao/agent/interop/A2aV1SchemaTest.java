package cn.agentao.agent.interop;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pinned A2A 1.0 schema check ({@link A2aV1Schema}) really fails on what 1.0 does not allow: the 0.3 shapes a
 * server of both generations could leak (a {@code kind}, a lower-case state or role, {@code final}), a missing
 * required field, two members of one oneof, an error without its {@code ErrorInfo}; and passes the specification's
 * own examples.
 */
class A2aV1SchemaTest {
    private static JsonNode json(String text) throws Exception {
        return Json.mapper().readTree(text);
    }

    private static final String TASK = """
            {"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-05-01T10:00:00.123Z"},
             "artifacts":[{"artifactId":"a1","parts":[{"text":"hi"}]}],
             "history":[{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"},{"data":{"k":[1,2]},"mediaType":"application/json"}]}]}""";

    private static void rejected(String message, JsonNode node, String why) {
        AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> A2aV1Schema.assertMessage(message, node, "test"), why);
        assertTrue(e.getMessage().contains("not a valid A2A 1.0 " + message), e.getMessage());
    }

    @Test
    void aTaskOf10PassesAndEach03ShapeFails() throws Exception {
        assertDoesNotThrow(() -> A2aV1Schema.assertMessage("Task", json(TASK), "test"));

        ObjectNode kind = (ObjectNode) json(TASK);
        kind.put("kind", "task");
        rejected("Task", kind, "0.3's kind discriminator");
        rejected("Task", json(TASK.replace("TASK_STATE_COMPLETED", "completed")), "0.3's state name");
        rejected("Task", json(TASK.replace("ROLE_USER", "user")), "0.3's role name");
        rejected("Task", json(TASK.replace("{\"text\":\"hi\"}", "{\"kind\":\"text\",\"text\":\"hi\"}")), "a part with kind");
        rejected("Task", json(TASK.replace("\"id\":\"t1\",", "")), "the required id");
        rejected("Task", json(TASK.replace("{\"text\":\"hi\"}", "{\"text\":\"hi\",\"url\":\"https://x\"}")), "two members of Part's oneof");
        rejected("Task", json(TASK.replace("2026-05-01T10:00:00.123Z", "yesterday")), "a timestamp that is not RFC 3339");

        JsonNode update = json("""
                {"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}""");
        assertDoesNotThrow(() -> A2aV1Schema.assertMessage("StreamResponse", update, "test"));
        rejected("StreamResponse", json("""
                {"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"},"final":true}}"""), "0.3's final");
    }

    @Test
    void errorsNeedTheirEnvelopeAndA2aErrorsTheirErrorInfo() throws Exception {
        JsonNode good = json("""
                {"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Task not found","data":[{"@type":
                "type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"x"}}]}}""");
        assertDoesNotThrow(() -> A2aV1Schema.assertRpcError(good));
        assertThrows(AssertionFailedError.class, () -> A2aV1Schema.assertRpcError(json("""
                {"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Task not found"}}""")), "an A2A error without ErrorInfo");
        assertThrows(AssertionFailedError.class, () -> A2aV1Schema.assertRpcError(json("""
                {"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Task not found","data":{"taskId":"x"}}}""")), "0.3's data object");
        assertDoesNotThrow(() -> A2aV1Schema.assertRestError(json("""
                {"error":{"code":404,"status":"NOT_FOUND","message":"no such task","details":[{"@type":
                "type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}""")));
        assertThrows(AssertionFailedError.class, () -> A2aV1Schema.assertRestError(json("""
                {"error":"no such task"}""")), "a bare error string");
    }

    @Test
    void requestsOfOurClientAreCheckedByTheirMethod() throws Exception {
        JsonNode send = json("""
                {"jsonrpc":"2.0","id":"1","method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER",
                "parts":[{"text":"hi"}]},"configuration":{"returnImmediately":false}}}""");
        assertDoesNotThrow(() -> A2aV1Schema.assertRpcRequest(send));
        assertThrows(AssertionFailedError.class, () -> A2aV1Schema.assertRpcRequest(json("""
                {"jsonrpc":"2.0","id":"1","method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER",
                "parts":[{"text":"hi"}]},"configuration":{"blocking":true}}}""")), "0.3's blocking");
        assertThrows(AssertionFailedError.class, () -> A2aV1Schema.assertRpcRequest(json("""
                {"jsonrpc":"2.0","id":"1","method":"message/send","params":{}}""")), "a 0.3 method");
    }
}
