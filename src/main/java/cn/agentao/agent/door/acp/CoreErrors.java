package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.jsonrpc.ErrorCodes;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.util.Json;

/** The one place the core's refusals become JSON-RPC errors. */
final class CoreErrors {
    /** ACP: the method needs authentication first. */
    static final int AUTH_REQUIRED = -32000;
    /** ACP: a given resource, such as a session, was not found (the id in {@code data}). */
    static final int RESOURCE_NOT_FOUND = -32002;

    private CoreErrors() {}

    static JsonRpcException toJsonRpc(CoreException e) {
        return switch (e) {
            case CoreException.InvalidArgument a -> JsonRpcException.invalidParams(a.getMessage());
            case CoreException.AuthRequired a -> new JsonRpcException(AUTH_REQUIRED, a.getMessage());
            case CoreException.StorageFailed s -> new JsonRpcException(ErrorCodes.INTERNAL_ERROR, s.getMessage());
            case CoreException.NotFound n when n.sessionId() != null -> unknownSession(n.sessionId());
            default -> JsonRpcException.invalidRequest(e.getMessage()); // not found, busy, or cannot be done now
        };
    }

    /** ACP's "resource not found" for a session id that names no session, the id in {@code data.sessionId}. */
    static JsonRpcException unknownSession(String sessionId) {
        return new JsonRpcException(RESOURCE_NOT_FOUND, CoreException.NotFound.session(sessionId).getMessage(),
                Json.object().put("sessionId", sessionId));
    }

    /** A core call that may refuse. */
    interface CoreCall<T> {
        T call() throws CoreException;
    }

    /** Runs {@code call}, its refusal translated. */
    static <T> T translated(CoreCall<T> call) throws JsonRpcException {
        try {
            return call.call();
        } catch (CoreException e) {
            throw toJsonRpc(e);
        }
    }
}
