package cn.agentao.agent.core.repository;

import java.nio.file.Path;
import java.time.Instant;

/**
 * What {@link SessionRepository#list} says about a session, derived from its log.
 *
 * @param cwd       the working directory the session was created in; null only if the header is unreadable
 * @param title     the latest title, or null if the session has none yet
 * @param createdAt from the header; null only if the header is unreadable
 * @param updatedAt the time of the latest record (the header's createdAt if there is none; for an unreadable
 *                  session, the file's modification time)
 * @param records   how many readable records follow the header
 * @param problem   null for a readable session; otherwise why it cannot be read (it is still listed, so that
 *                  it can be found and deleted or exported)
 */
public record SessionSummary(String sessionId, Path cwd, String title, Instant createdAt, Instant updatedAt,
                             long records, String problem) {

    public boolean readable() {
        return problem == null;
    }
}
