package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.core.repository.Timestamps;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;

/**
 * The position in a listing ordered newest {@code updatedAt} first (ties by id): the sort key of the last
 * summary of the previous page (shared by every repository). Opaque to callers. A page starts strictly after it, so sessions created
 * meanwhile (which sort before it) neither shift nor repeat the following pages.
 */
public record ListCursor(Instant updatedAt, String sessionId) {
    static final Comparator<SessionSummary> ORDER = Comparator
            .comparing(SessionSummary::updatedAt, Comparator.reverseOrder())
            .thenComparing(SessionSummary::sessionId);

    public static ListCursor after(SessionSummary last) {
        return new ListCursor(last.updatedAt(), last.sessionId());
    }

    /** Whether {@code summary} comes after this position. */
    boolean precedes(SessionSummary summary) {
        int byTime = summary.updatedAt().compareTo(updatedAt);
        return byTime < 0 || byTime == 0 && summary.sessionId().compareTo(sessionId) > 0;
    }

    public String encode() {
        String plain = updatedAt + " " + sessionId;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    public static ListCursor decode(String cursor) {
        try {
            String plain = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            int space = plain.indexOf(' ');
            Instant updatedAt = Timestamps.parseOrNull(space < 0 ? null : plain.substring(0, space));
            String sessionId = plain.substring(space + 1);
            if (updatedAt != null && SessionFiles.isValidId(sessionId)) return new ListCursor(updatedAt, sessionId);
        } catch (IllegalArgumentException e) {
            // not base64: reported below
        }
        throw new IllegalArgumentException("invalid session list cursor '" + cursor + "'");
    }
}
