package cn.agentao.agent.core.repository;

/** The session was written in a newer major format version than this agent understands; it is left untouched. */
public final class UnsupportedSessionVersionException extends SessionCorruptException {
    private final int version;

    public UnsupportedSessionVersionException(String sessionId, int version) {
        super(sessionId, "session " + sessionId + " uses session format version " + version
                + ", newer than this agent supports (" + SessionHeader.VERSION + "); upgrade the agent to open it");
        this.version = version;
    }

    public int version() {
        return version;
    }
}
