package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.door.acp.protocol.ClientCapabilities;
import cn.agentao.agent.door.acp.protocol.SessionUpdate;
import cn.agentao.agent.door.acp.protocol.SessionUpdates;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code --output-format stream-json}: each core event as the {@code update} of an ACP {@code session/update}, so a
 * script reads what an editor would, through the ACP door's own mapping ({@link SessionUpdates}, ACP's vocabulary).
 * The reader is taken to understand compaction updates; notices come as a "⚠" line of the answer, as an editor that
 * did not advertise {@code session.notices} gets them.
 */
final class StreamJson {
    private static final ClientCapabilities READER =
            ClientCapabilities.from(Json.object().set("session", Json.object().set("compaction", Json.object())));

    private StreamJson() {}

    /** The line's {@code update}, or null when the event has no ACP update. */
    static ObjectNode update(AgentEvent event) {
        SessionUpdate u = SessionUpdates.of(event, READER);
        return u == null ? null : Json.mapper().valueToTree(u);
    }
}
