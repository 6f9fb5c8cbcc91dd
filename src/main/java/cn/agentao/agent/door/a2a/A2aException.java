package cn.agentao.agent.door.a2a;

import cn.agentao.agent.jsonrpc.ErrorCodes;

/** An A2A JSON-RPC error: a standard code ({@link ErrorCodes}) or one A2A defines (-32001…-32009). */
public final class A2aException extends Exception {
    public static final int TASK_NOT_FOUND = -32001;
    public static final int TASK_NOT_CANCELABLE = -32002;
    public static final int PUSH_NOT_SUPPORTED = -32003;
    public static final int UNSUPPORTED_OPERATION = -32004;
    public static final int CONTENT_TYPE_NOT_SUPPORTED = -32005;
    public static final int VERSION_NOT_SUPPORTED = -32009;

    private final int code;

    public A2aException(int code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public int code() { return code; }

    static A2aException invalidParams(String message) { return new A2aException(ErrorCodes.INVALID_PARAMS, message); }

    static A2aException invalidRequest(String message) { return new A2aException(ErrorCodes.INVALID_REQUEST, message); }

    static A2aException taskNotFound(String id) { return new A2aException(TASK_NOT_FOUND, "Task not found: " + id); }

    static A2aException unsupported(String message) { return new A2aException(UNSUPPORTED_OPERATION, message); }
}
