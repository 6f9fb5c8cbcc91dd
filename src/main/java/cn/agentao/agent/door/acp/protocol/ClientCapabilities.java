package cn.agentao.agent.door.acp.protocol;

import com.fasterxml.jackson.databind.JsonNode;

/** What the client said it can do; we call no client method it did not advertise. */
public record ClientCapabilities(boolean readTextFile, boolean writeTextFile, boolean terminal,
                                 boolean askUser, JsonNode raw) {
    public static final ClientCapabilities NONE = new ClientCapabilities(false, false, false, false, null);

    /** {@code auth.terminal}: the client can run us in a terminal for the {@code terminal} auth method. */
    public boolean terminalAuth() {
        return raw != null && raw.path("auth").path("terminal").asBoolean(false);
    }

    /** {@code session.notices}: {@code notice} updates are shown. */
    public boolean notices() {
        return raw != null && raw.path("session").path("notices").isObject();
    }

    /** {@code session.compaction}: {@code compaction_update} / {@code compaction_summary_chunk} are understood. */
    public boolean compactionUpdates() {
        return raw != null && raw.path("session").path("compaction").isObject();
    }

    /** {@code elicitation.form}: questions to the user go as {@code elicitation/create} forms. */
    public boolean elicitationForm() {
        return raw != null && raw.path("elicitation").path("form").isObject();
    }

    /** {@code subagents}: a subagent is shown as a child session ({@code subagent_update}, its updates under its id). */
    public boolean subagents() {
        return raw != null && raw.path("subagents").isObject();
    }

    public static ClientCapabilities from(JsonNode caps) {
        if (caps == null || !caps.isObject()) return NONE;
        JsonNode fs = caps.path("fs");
        boolean ask = caps.path("_meta").path("_agentao.cn/ask_user").asBoolean(false)
                || caps.path("_meta").path("askUser").asBoolean(false);
        return new ClientCapabilities(fs.path("readTextFile").asBoolean(false),
                fs.path("writeTextFile").asBoolean(false), caps.path("terminal").asBoolean(false), ask, caps);
    }
}
