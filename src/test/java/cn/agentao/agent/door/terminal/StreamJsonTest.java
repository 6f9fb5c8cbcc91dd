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

    @Test
    void aToolTitleShowsEveryCharacterItsRawInputStaysExact() {
        String command = "rm -rf ~\u202E\u200B\u001b[2K";
        var input = cn.agentao.agent.util.Json.object().put("command", command);
        JsonNode started = StreamJson.update(new AgentEvent.ToolCallStarted("t1", "Run `" + command + "`", null, null, null, null, input, null));
        assertEquals("Run `rm -rf ~<U+202E><U+200B><U+001B>[2K`", started.path("title").asText(), started.toString());
        assertEquals(command, started.path("rawInput").path("command").asText());
        JsonNode updated = StreamJson.update(new AgentEvent.ToolCallUpdated("t1", "Run `\u2066x`", null, null, null, null, null, null));
        assertEquals("Run `<U+2066>x`", updated.path("title").asText(), updated.toString());
    }
}
