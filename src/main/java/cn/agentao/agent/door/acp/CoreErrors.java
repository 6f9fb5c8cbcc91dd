package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.jsonrpc.ErrorCodes;
import cn.agentao.agent.jsonrpc.JsonRpcException;

/** The one place the core's refusals become JSON-RPC errors. */
final class CoreErrors {
    /** ACP: the method needs authentication first. */
    static final int AUTH_REQUIRED = -32000;

    private CoreErrors() {}

    static JsonRpcException toJsonRpc(CoreException e) {
        return switch (e) {
            case CoreException.InvalidArgument a -> JsonRpcException.invalidParams(a.getMessage());
            case CoreException.AuthRequired a -> new JsonRpcException(AUTH_REQUIRED, a.getMessage());
            case CoreException.StorageFailed s -> new JsonRpcException(ErrorCodes.INTERNAL_ERROR, s.getMessage());
            default -> JsonRpcException.invalidRequest(e.getMessage()); // not found, busy, or cannot be done now
        };
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
