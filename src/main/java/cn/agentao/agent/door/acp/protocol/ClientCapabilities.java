package cn.agentao.agent.door.acp.protocol;

import com.fasterxml.jackson.databind.JsonNode;

/** What the client said it can do; we call no client method it did not advertise. */
public record ClientCapabilities(boolean readTextFile, boolean writeTextFile, boolean terminal,
                                 boolean askUser, JsonNode raw) {
    public static final ClientCapabilities NONE = new ClientCapabilities(false, false, false, false, null);

    public static ClientCapabilities from(JsonNode caps) {
        if (caps == null || !caps.isObject()) return NONE;
        JsonNode fs = caps.path("fs");
        boolean ask = caps.path("_meta").path("_agentao.cn/ask_user").asBoolean(false)
                || caps.path("_meta").path("askUser").asBoolean(false);
        return new ClientCapabilities(fs.path("readTextFile").asBoolean(false),
                fs.path("writeTextFile").asBoolean(false), caps.path("terminal").asBoolean(false), ask, caps);
    }
}
