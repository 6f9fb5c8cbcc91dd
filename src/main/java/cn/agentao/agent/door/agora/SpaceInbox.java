package cn.agentao.agent.door.agora;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Turns the server's space messages into whole {@link SpaceMessage}s: a {@code space.event} at once, the
 * {@code space.event.delta} pieces of one {@code event_id} when their {@code space.event.done} arrives (a
 * {@code space.event.cancel} drops them). Remembers which messages it handed out, so one delivered again after a
 * reconnect is not answered twice. Not thread-safe: the door feeds it from the link's single reader.
 */
final class SpaceInbox {
    static final int REMEMBERED = 10_000;
    /** Pieces kept at most per unfinished event, so a server that never says done cannot fill the memory. */
    static final int MAX_PENDING_CHARS = 1_000_000;

    private record Pending(String space, StringBuilder text, String[] from, int depth) {}

    private final Map<String, Pending> pending = new LinkedHashMap<>();
    private final Map<String, Boolean> seen = new LinkedHashMap<>(16, 0.75f, false) {
        @Override protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) { return size() > REMEMBERED; }
    };

    /** A whole message to consider, or empty (a piece, a repeat, or not a message at all). */
    Optional<SpaceMessage> accept(JsonNode m) {
        String type = AgoraMessages.type(m);
        String space = AgoraMessages.text(m, "space");
        if (space == null) return Optional.empty();
        JsonNode data = m.path("data");
        String eventId = AgoraMessages.text(m, "event_id");
        if (eventId == null) eventId = AgoraMessages.text(data, "event_id");
        switch (type) {
            case AgoraMessages.EVENT -> {
                if (eventId == null) eventId = AgoraMessages.text(m, "id");
                SpaceMessage msg = new SpaceMessage(space, eventId, AgoraMessages.text(data, "from"),
                        AgoraMessages.text(data, "text"), data.path("depth").asInt(0));
                return fresh(msg, data.path("timestamp").asLong(m.path("timestamp").asLong(0)));
            }
            case AgoraMessages.DELTA -> {
                if (eventId == null) return Optional.empty();
                Pending p = pending.computeIfAbsent(space + "\n" + eventId,
                        k -> new Pending(space, new StringBuilder(), new String[1], data.path("depth").asInt(0)));
                String from = AgoraMessages.text(data, "from");
                if (from != null && p.from()[0] == null) p.from()[0] = from;
                String piece = AgoraMessages.text(data, "text");
                if (piece != null && p.text().length() + piece.length() <= MAX_PENDING_CHARS) p.text().append(piece);
                return Optional.empty();
            }
            case AgoraMessages.DONE -> {
                if (eventId == null) return Optional.empty();
                Pending p = pending.remove(space + "\n" + eventId);
                if (p == null) return Optional.empty();
                return fresh(new SpaceMessage(space, eventId, p.from()[0], p.text().toString(), p.depth()), 0);
            }
            case AgoraMessages.CANCEL -> {
                if (eventId != null) pending.remove(space + "\n" + eventId);
                return Optional.empty();
            }
            default -> { return Optional.empty(); }
        }
    }

    private Optional<SpaceMessage> fresh(SpaceMessage msg, long timestamp) {
        if (msg.text() == null) return Optional.empty();
        return seen.put(msg.key(timestamp), Boolean.TRUE) == null ? Optional.of(msg) : Optional.empty();
    }
}
