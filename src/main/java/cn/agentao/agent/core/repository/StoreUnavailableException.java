package cn.agentao.agent.core.repository;

/**
 * The store the user chose cannot be used at all: its address is wrong, or its server cannot be reached or refuses
 * the credentials. Unlike a write that fails (a full disk: the session goes on unsaved, and says so), a new session
 * is then refused: on a store shared by several instances an unsaved conversation is one no other instance can
 * continue, so the user must learn of it before the conversation starts, not after.
 */
public final class StoreUnavailableException extends SessionStoreException {
    public StoreUnavailableException(String message) {
        super(message);
    }

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
