package cn.agentao.agent.jsonrpc;

import com.fasterxml.jackson.databind.JsonNode;

/** A failure that becomes a JSON-RPC error response (inbound) or came from one (outbound). */
public class JsonRpcException extends Exception {
    private final int code;
    private final transient JsonNode data;

    public JsonRpcException(int code, String message) {
        this(code, message, null);
    }

    public JsonRpcException(int code, String message, JsonNode data) {
        super(message, null, false, false);
        this.code = code;
        this.data = data;
    }

    public int code() { return code; }

    public JsonNode data() { return data; }

    public static JsonRpcException invalidParams(String detail) {
        return new JsonRpcException(ErrorCodes.INVALID_PARAMS, "Invalid params: " + detail);
    }

    public static JsonRpcException invalidRequest(String detail) {
        return new JsonRpcException(ErrorCodes.INVALID_REQUEST, detail);
    }
}
