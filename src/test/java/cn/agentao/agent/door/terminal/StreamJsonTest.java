package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.event.AgentEvent;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A stream-json line carries ACP's own field names, the ones an editor's client reads. */
class StreamJsonTest {

    @Test
    void modesCommandsAndCompactionUseAcpFieldNames() {
        JsonNode mode = StreamJson.update(new AgentEvent.ModeChanged("plan"));
        assertEquals("current_mode_update", mode.path("sessionUpdate").asText());
        assertEquals("plan", mode.path("currentModeId").asText(), mode.toString());

        JsonNode commands = StreamJson.update(new AgentEvent.CommandsChanged(List.of(new AvailableCommand("compact", "Summarise", null))));
        assertEquals("available_commands_update", commands.path("sessionUpdate").asText());
        assertEquals("compact", commands.path("availableCommands").path(0).path("name").asText(), commands.toString());

        JsonNode compaction = StreamJson.update(new AgentEvent.CompactionChanged("c1", "completed", "the gist", null));
        assertEquals("compaction_update", compaction.path("sessionUpdate").asText());
        assertEquals("the gist", compaction.path("summary").path(0).path("text").asText(), "ACP's summary is content blocks: " + compaction);
        assertFalse(compaction.has("error"), "no null fields: " + compaction);
    }

    @Test
    void aNoticeIsAWarningLineOfTheAnswer() {
        JsonNode notice = StreamJson.update(new AgentEvent.Notice("MCP server x failed"));
        assertEquals("agent_message_chunk", notice.path("sessionUpdate").asText());
        assertTrue(notice.path("content").path("text").asText().startsWith("⚠ MCP server x failed"), notice.toString());
    }
}
