package cn.agentao.agent.core.repository;

/** The session is open for writing (live) in this or another agent process, so it cannot be opened or deleted. */
public final class SessionBusyException extends SessionStoreException {
    private final String sessionId;

    public SessionBusyException(String sessionId) {
        super("session " + sessionId + " is in use by another agent (it is open for writing there); "
                + "close it there first or work on a copy");
        this.sessionId = sessionId;
    }

    public String sessionId() {
        return sessionId;
    }
}
