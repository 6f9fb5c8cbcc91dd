package cn.agentao.agent.core.repository;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/** The ISO-8601 instants of the on-disk format. */
public final class Timestamps {
    private Timestamps() {}

    /** Parses an ISO-8601 instant ({@code 2025-01-31T10:15:30.123Z}); null or unparsable gives null. */
    public static Instant parseOrNull(String text) {
        if (text == null || text.isEmpty()) return null;
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
