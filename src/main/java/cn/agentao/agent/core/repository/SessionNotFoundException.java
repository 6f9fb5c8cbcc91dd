package cn.agentao.agent.core.repository;

/** No stored session has this id (or no id starts with this prefix). */
public final class SessionNotFoundException extends SessionStoreException {
    private final String sessionId;

    public SessionNotFoundException(String sessionId, String message) {
        super(message);
        this.sessionId = sessionId;
    }

    public static SessionNotFoundException of(String sessionId) {
        return new SessionNotFoundException(sessionId, "no stored session " + sessionId);
    }

    public String sessionId() {
        return sessionId;
    }
}
