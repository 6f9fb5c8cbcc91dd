package cn.agentao.agent.jsonrpc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;

/** Outgoing JSON-RPC envelopes, serialised directly (no intermediate tree). */
final class Messages {
    private Messages() {}

    @JsonPropertyOrder({"jsonrpc", "id", "method", "params"})
    record Request(String jsonrpc, long id, String method, Object params) {
        Request(long id, String method, Object params) { this("2.0", id, method, params); }
    }

    @JsonPropertyOrder({"jsonrpc", "method", "params"})
    record Notification(String jsonrpc, String method, Object params) {
        Notification(String method, Object params) { this("2.0", method, params); }
    }

    /** {@code id} is kept even when it is JSON null (parse errors must answer {@code "id": null}). */
    @JsonPropertyOrder({"jsonrpc", "id", "result"})
    record Result(String jsonrpc, @JsonInclude(JsonInclude.Include.ALWAYS) JsonNode id,
                  @JsonInclude(JsonInclude.Include.ALWAYS) Object result) {
        Result(JsonNode id, Object result) { this("2.0", id, result); }
    }

    @JsonPropertyOrder({"jsonrpc", "id", "error"})
    record Error(String jsonrpc, @JsonInclude(JsonInclude.Include.ALWAYS) JsonNode id, ErrorBody error) {
        Error(JsonNode id, int code, String message, JsonNode data) { this("2.0", id, new ErrorBody(code, message, data)); }
    }

    record ErrorBody(int code, String message, JsonNode data) {}
}
