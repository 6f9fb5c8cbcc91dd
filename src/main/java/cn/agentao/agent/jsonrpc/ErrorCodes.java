package cn.agentao.agent.jsonrpc;

/** JSON-RPC 2.0 error codes, and the LSP-style cancellation code. */
public final class ErrorCodes {
    public static final int PARSE_ERROR = -32700;
    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;
    /** The request was cancelled with $/cancel_request. */
    public static final int REQUEST_CANCELLED = -32800;

    private ErrorCodes() {}
}
