package cn.agentao.agent.door.agora;

/**
 * One whole message said in a space (a {@code space.event}, or {@code space.event.delta} pieces joined at
 * {@code space.event.done}). {@code eventId} may be null (the spec makes it optional); {@code depth} is how many
 * agent answers led to it (0 when its sender did not say).
 */
public record SpaceMessage(String space, String eventId, String from, String text, int depth) {

    /** Identifies the message for "never answer twice": its event id, else what it says and who said it when. */
    String key(long timestamp) {
        return space + "\n" + (eventId != null ? "id:" + eventId : from + "\n" + timestamp + "\n" + text);
    }
}
