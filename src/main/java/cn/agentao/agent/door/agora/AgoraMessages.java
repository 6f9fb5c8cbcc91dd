package cn.agentao.agent.door.agora;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Agora messages this agent sends, as the spec writes them: plain {@code {type, id, timestamp, …}} objects
 * (specs/agora-protocol.md), one per WebSocket text frame.
 */
final class AgoraMessages {
    static final String REGISTER = "agent.register";
    static final String REGISTERED = "agent.registered";
    static final String HEARTBEAT = "agent.heartbeat";
    static final String JOIN = "space.join";
    static final String JOINED = "space.joined";
    static final String LEAVE = "space.leave";
    static final String MEMBERS = "space.members";
    static final String PUBLISH = "space.publish";
    static final String EVENT = "space.event";
    static final String DELTA = "space.event.delta";
    static final String DONE = "space.event.done";
    static final String CANCEL = "space.event.cancel";
    static final String ERROR = "error";

    private final AtomicLong ids = new AtomicLong();

    String nextId() { return "msg_" + ids.incrementAndGet(); }

    private ObjectNode base(String type, boolean withId) {
        ObjectNode o = Json.object().put("type", type);
        if (withId) o.put("id", nextId());
        o.put("timestamp", System.currentTimeMillis() / 1000);
        return o;
    }

    ObjectNode register(String agentId, String version, List<String> capabilities) {
        ObjectNode o = base(REGISTER, true);
        ObjectNode agent = o.putObject("agent").put("id", agentId).put("type", "process");
        capabilities.forEach(agent.putArray("capabilities")::add);
        agent.putObject("metadata").put("version", version).put("os", System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT));
        return o;
    }

    ObjectNode heartbeat() { return base(HEARTBEAT, false); }

    ObjectNode join(String space) { return base(JOIN, true).put("space", space); }

    ObjectNode leave(String space) { return base(LEAVE, true).put("space", space); }

    /** {@code replyTo}/{@code depth}: which message this answers and how deep the thread is (for other agents' loop guards). */
    ObjectNode publish(String space, String from, String text, String replyTo, int depth) {
        ObjectNode o = base(PUBLISH, true).put("space", space);
        ObjectNode data = o.putObject("data").put("from", from).put("text", text).put("timestamp", System.currentTimeMillis() / 1000);
        if (replyTo != null) data.put("reply_to", replyTo);
        if (depth > 0) data.put("depth", depth);
        return o;
    }

    static String type(JsonNode m) { return m.path("type").asText(""); }

    static String text(JsonNode m, String field) {
        JsonNode v = m.get(field);
        return v == null || !v.isValueNode() || v.isNull() ? null : v.asText();
    }
}
