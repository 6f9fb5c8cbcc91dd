package cn.agentao.agent.core.repository;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * The first line of every session log: {@code {"type":"header","format":"agent-session","version":1,
 * "sessionId":...,"cwd":...,"createdAt":...}} plus whatever extra fields the engine put there.
 *
 * @param json the whole header line as stored, extra fields included (treat as read-only)
 */
public record SessionHeader(int version, String sessionId, Path cwd, Instant createdAt, ObjectNode json) {
    public static final String TYPE = "header";
    public static final String FORMAT = "agent-session";
    /** The major format version this code writes and the newest it reads. */
    public static final int VERSION = 1;

    private static final Set<String> RESERVED = Set.of("type", "format", "version", "sessionId", "cwd", "createdAt");

    /** Builds the header of a new session; {@code extra} (nullable) may not use the reserved field names. */
    public static SessionHeader create(String sessionId, Path cwd, Instant createdAt, ObjectNode extra) {
        ObjectNode json = Json.object()
                .put("type", TYPE)
                .put("format", FORMAT)
                .put("version", VERSION)
                .put("sessionId", sessionId)
                .put("cwd", cwd.toString())
                .put("createdAt", createdAt.toString());
        if (extra != null) {
            for (Map.Entry<String, JsonNode> field : extra.properties()) {
                if (RESERVED.contains(field.getKey())) {
                    throw new IllegalArgumentException("header field '" + field.getKey() + "' is reserved by the store");
                }
                json.set(field.getKey(), field.getValue());
            }
        }
        return new SessionHeader(VERSION, sessionId, cwd, createdAt, json);
    }

    /**
     * Validates a parsed first line. {@code fileId} is the session id the file name says, used in messages.
     *
     * @throws UnsupportedSessionVersionException if the header is of a newer major version
     * @throws SessionCorruptException            if it is not a readable session header
     */
    public static SessionHeader parse(String fileId, JsonNode line) {
        if (!(line instanceof ObjectNode json) || !TYPE.equals(json.path("type").asText())
                || !FORMAT.equals(json.path("format").asText())) {
            throw corrupt(fileId, "its first line is not an agent-session header");
        }
        JsonNode version = json.get("version");
        if (version == null || !version.canConvertToInt() || version.asInt() < 1) {
            throw corrupt(fileId, "its header has no valid format version");
        }
        if (version.asInt() > VERSION) {
            throw new UnsupportedSessionVersionException(fileId, version.asInt());
        }
        return new SessionHeader(version.asInt(), json.path("sessionId").asText(fileId),
                lenientCwd(json), lenientCreatedAt(json), json);
    }

    /** The header's cwd, or null if it has none usable; for summaries of sessions that cannot be fully read. */
    public static Path lenientCwd(JsonNode header) {
        String cwd = header.path("cwd").asText("");
        try {
            return cwd.isEmpty() ? null : Path.of(cwd);
        } catch (InvalidPathException e) {
            return null;
        }
    }

    /** The header's createdAt, or null if it has none usable. */
    public static Instant lenientCreatedAt(JsonNode header) {
        return Timestamps.parseOrNull(header.path("createdAt").asText(null));
    }

    private static SessionCorruptException corrupt(String fileId, String why) {
        return new SessionCorruptException(fileId, "session " + fileId + " cannot be read: " + why);
    }
}
