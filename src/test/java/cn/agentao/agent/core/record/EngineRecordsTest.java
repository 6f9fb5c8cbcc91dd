package cn.agentao.agent.core.record;

import cn.agentao.agent.core.repository.StoredSession;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.testing.AgentProcess;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.AiMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The engine's record format is the JSON the agent has always written: old logs read, and write back the same. */
class EngineRecordsTest {
    @TempDir
    Path dir;

    private StoredSession fixture(String name) throws Exception {
        Files.copy(AgentProcess.home().resolve("sessions-store/fixtures/" + name + ".jsonl"), dir.resolve(name + ".jsonl"));
        return new SessionStore(dir).read(name);
    }

    /** Every record of the documented fixture reads as an engine record whose payload is, field for field, the stored one. */
    @Test
    void theFixturesRecordsRoundTripUnchanged() throws Exception {
        StoredSession good = fixture("good");
        assertEquals(15, good.records().size());
        for (ObjectNode line : good.records()) {
            EngineRecord record = EngineRecords.read(line);
            ObjectNode stored = line.deepCopy();
            stored.remove(List.of("seq", "ts", "type"));
            ObjectNode written = EngineRecords.payload(record);
            if (record instanceof EngineRecord.ModelMessage) { // LangChain4j's JSON string: the same message, however spelt
                assertEquals(ChatMessageJson.fromJson(stored.path("message").asText()),
                        ChatMessageJson.fromJson(written.path("message").asText()), line.toString());
            } else {
                assertEquals(stored, written, line.toString());
            }
            assertEquals(line.path("type").asText(), record.type());
        }
        assertInstanceOf(EngineRecord.Unknown.class, EngineRecords.read(good.records().get(8)), "x_annotation is kept as unknown");
    }

    /** Logs written before user blocks kept their type and model messages were strings still read. */
    @Test
    void olderShapesRead() throws Exception {
        List<ObjectNode> records = fixture("old-shapes").records();
        EngineRecord.UserMessage user = assertInstanceOf(EngineRecord.UserMessage.class, EngineRecords.read(records.get(0)));
        assertEquals(List.of(ContentBlock.text("List the files.")), user.content());
        assertFalse(user.local());
        AiMessage ai = assertInstanceOf(AiMessage.class, ((EngineRecord.ModelMessage) EngineRecords.read(records.get(1))).message());
        assertEquals("Here they are.", ai.text());
        assertEquals("list_directory", ai.toolExecutionRequests().getFirst().name());
        EngineRecord.ToolCallStarted call = assertInstanceOf(EngineRecord.ToolCallStarted.class, EngineRecords.read(records.get(2)));
        assertEquals(ToolCallStatus.IN_PROGRESS, call.status());
        assertEquals(".", call.rawInput().path("path").asText());
        assertEquals(new EngineRecord.TurnEnd(StopReason.CANCELLED), EngineRecords.read(records.get(3)));
    }
}
