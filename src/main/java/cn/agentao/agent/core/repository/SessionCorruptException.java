package cn.agentao.agent.core.repository;

/**
 * The session's log cannot be read as a session at all (empty file, missing or damaged header, or a newer
 * format: see the subclass {@link UnsupportedSessionVersionException}). Damage after the header never raises
 * this: damaged record lines are skipped and reported as warnings instead. Only the one session is affected.
 */
public class SessionCorruptException extends SessionStoreException {
    private final String sessionId;

    public SessionCorruptException(String sessionId, String message) {
        super(message);
        this.sessionId = sessionId;
    }

    public String sessionId() {
        return sessionId;
    }
}
