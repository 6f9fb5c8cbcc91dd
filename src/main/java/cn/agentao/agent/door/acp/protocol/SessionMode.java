package cn.agentao.agent.door.acp.protocol;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

public record SessionMode(String id, String name, String description) {
    public record State(String currentModeId, List<SessionMode> availableModes) {
        /** The tree the mapper would make of this state (absent fields left out), built without the mapper. */
        public ObjectNode toTree() {
            ObjectNode n = Json.object();
            Json.putIfPresent(n, "currentModeId", currentModeId);
            if (availableModes != null) {
                ArrayNode modes = n.putArray("availableModes");
                for (SessionMode m : availableModes) {
                    ObjectNode mn = modes.addObject();
                    Json.putIfPresent(mn, "id", m.id);
                    Json.putIfPresent(mn, "name", m.name);
                    Json.putIfPresent(mn, "description", m.description);
                }
            }
            return n;
        }
    }
}
