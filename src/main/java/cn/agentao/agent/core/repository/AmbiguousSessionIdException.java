package cn.agentao.agent.core.repository;

import java.util.List;

/** A session id prefix matches more than one stored session. */
public final class AmbiguousSessionIdException extends SessionStoreException {
    private static final int SHOWN = 10;
    private final List<String> candidates;

    public AmbiguousSessionIdException(String prefix, List<String> candidates) {
        super("session id prefix '" + prefix + "' is ambiguous: it matches " + candidates.size() + " sessions ("
                + String.join(", ", candidates.subList(0, Math.min(SHOWN, candidates.size())))
                + (candidates.size() > SHOWN ? ", ..." : "") + "); type more of the id");
        this.candidates = List.copyOf(candidates);
    }

    public List<String> candidates() {
        return candidates;
    }
}
