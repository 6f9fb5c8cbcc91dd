package cn.agentao.agent.core.repository;

/** {@link SessionRepository#create} was asked for an id that is already stored. */
public final class SessionExistsException extends SessionStoreException {
    public SessionExistsException(String sessionId) {
        super("session " + sessionId + " already exists");
    }
}
