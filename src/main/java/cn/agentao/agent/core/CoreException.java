package cn.agentao.agent.core;

/**
 * Why the core refused a request, in domain terms; each front door translates it once (ACP: a JSON-RPC error,
 * see {@code door/acp/CoreErrors}). The message is written for the user and names what was wrong. This class
 * itself means "cannot be done now" (ACP -32600); subclasses are more specific.
 */
public class CoreException extends Exception {
    public CoreException(String message) {
        super(message);
    }

    public CoreException(String message, Throwable cause) {
        super(message, cause);
    }

    /** A session, setting, provider or other named thing does not exist. */
    public static final class NotFound extends CoreException {
        private final String sessionId;

        public NotFound(String message) { this(message, null); }

        private NotFound(String message, String sessionId) {
            super(message);
            this.sessionId = sessionId;
        }

        /** No session with this id (live or saved, as the call needs): "unknown sessionId: …". */
        public static NotFound session(String id) { return new NotFound("unknown sessionId: " + id, id); }

        /** The session id that was not found, or null when what was missing is not a session. */
        public String sessionId() { return sessionId; }
    }

    /** An argument is malformed or not one of the allowed values (ACP -32602). */
    public static final class InvalidArgument extends CoreException {
        public InvalidArgument(String message) { super(message); }
    }

    /** The session is in use: a turn is running, or it is open here or in another process. */
    public static final class Busy extends CoreException {
        public Busy(String message) { super(message); }
    }

    /** No model provider is configured; the message says how to configure one. */
    public static final class AuthRequired extends CoreException {
        public AuthRequired(String message) { super(message); }
    }

    /** The session store failed (disk, permissions); the message says how to fix it (ACP -32603). */
    public static final class StorageFailed extends CoreException {
        public StorageFailed(String message, Throwable cause) { super(message, cause); }
    }
}
