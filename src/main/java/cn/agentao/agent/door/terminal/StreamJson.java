package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code --output-format stream-json}: each core event as the {@code update} of an ACP {@code session/update}, so
 * a script reads what an editor would. The events' fields serialise as ACP's; only the discriminator and the
 * few fields ACP names differently are set here (doors do not share code: this door cannot use the ACP door's).
 */
final class StreamJson {
    private StreamJson() {}

    static ObjectNode update(AgentEvent event) {
        ObjectNode u = Json.object().put("sessionUpdate", kind(event));
        JsonNode fields = event instanceof AgentEvent.Notice n
                ? Json.object().set("content", Json.MAPPER.valueToTree(ContentBlock.text("⚠ " + n.text() + "\n")))
                : Json.MAPPER.valueToTree(event);
        fields.properties().forEach(f -> { if (!f.getValue().isNull()) u.set(f.getKey(), f.getValue()); });
        switch (event) {
            case AgentEvent.ModeChanged m -> {
                u.remove("modeId");
                u.put("currentModeId", m.modeId());
            }
            case AgentEvent.CommandsChanged c -> u.set("availableCommands", u.remove("commands"));
            case AgentEvent.SettingsChanged s -> {
                ArrayNode options = (ArrayNode) u.remove("settings");
                for (JsonNode o : options) ((ObjectNode) o).put("type", "select").set("options", ((ObjectNode) o).remove("choices"));
                u.set("configOptions", options);
            }
            default -> { }
        }
        return u;
    }

    private static String kind(AgentEvent event) {
        return switch (event) {
            case AgentEvent.MessageChunk m -> "agent_message_chunk";
            case AgentEvent.Notice n -> "agent_message_chunk";
            case AgentEvent.ThoughtChunk t -> "agent_thought_chunk";
            case AgentEvent.UserMessage u -> "user_message_chunk";
            case AgentEvent.ToolCallStarted c -> "tool_call";
            case AgentEvent.ToolCallUpdated c -> "tool_call_update";
            case AgentEvent.PlanChanged p -> "plan";
            case AgentEvent.UsageChanged u -> "usage_update";
            case AgentEvent.TitleChanged t -> "session_info_update";
            case AgentEvent.ModeChanged m -> "current_mode_update";
            case AgentEvent.SettingsChanged s -> "config_option_update";
            case AgentEvent.CommandsChanged c -> "available_commands_update";
            case AgentEvent.CompactionChanged c -> "compaction_update";
            case AgentEvent.CompactionChunk c -> "compaction_summary_chunk";
        };
    }
}
