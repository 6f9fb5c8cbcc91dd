package cn.agentao.agent.core.repository;

/**
 * A session store operation failed. Subclasses say why (busy, not found, corrupt, ...); this class itself is
 * used for I/O failures. Every message names the session (and the file, where there is one).
 */
public class SessionStoreException extends RuntimeException {
    public SessionStoreException(String message) {
        super(message);
    }

    public SessionStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
