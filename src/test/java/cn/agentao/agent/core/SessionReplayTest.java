package cn.agentao.agent.core;

import cn.agentao.agent.core.record.ChatMessageJson;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.record.RecordTypes;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SessionWriter;
import cn.agentao.agent.store.SyncPolicy;
import cn.agentao.agent.testing.AgentProcess;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a load restores from the store: the documented fixture, and records as large as a prompt may be. */
class SessionReplayTest {
    @TempDir
    Path dir;

    /** The fixture is in the engine's own shapes: it restores to a model history a provider accepts. */
    @Test
    void theGoodFixtureRestoresItsModelHistory() throws Exception {
        Files.copy(AgentProcess.home().resolve("sessions-store/fixtures/good.jsonl"), dir.resolve("good.jsonl"));
        SessionReplay.Restored r = SessionReplay.restore(new SessionStore(dir), "good");
        List<ChatMessage> h = r.history();
        assertEquals(5, h.size(), h.toString());
        assertEquals("Why does the calculator test fail?", ((UserMessage) h.get(0)).singleText());
        AiMessage first = assertInstanceOf(AiMessage.class, h.get(1));
        assertEquals("run_shell_command", first.toolExecutionRequests().getFirst().name());
        assertEquals("call_1", assertInstanceOf(ToolExecutionResultMessage.class, h.get(2)).id());
        assertEquals("`divide` does not check for a zero divisor.", ((AiMessage) h.get(3)).text());
        assertEquals("Fix it, please.", ((UserMessage) h.get(4)).singleText());
        assertEquals("Calculator test failure", r.title());
        assertEquals("openai/gpt-4.1", r.state().model());
        String agentText = r.events().stream().filter(u -> u instanceof AgentEvent.MessageChunk)
                .map(u -> ((AgentEvent.MessageChunk) u).content().toString()).reduce("", String::concat);
        assertTrue(agentText.contains("I'll run the tests") && agentText.contains("zero divisor") && agentText.contains("HTTP 503"),
                agentText);
    }

    /** A stored record: the type and payload the journal writes. */
    private static ObjectNode line(cn.agentao.agent.core.record.EngineRecord r) {
        ObjectNode l = Json.object().put("type", r.type());
        l.setAll(cn.agentao.agent.core.record.EngineRecords.payload(r));
        return l;
    }

    /**
     * A subagent's records replay as its own session where it started, after the call that started it, and stay out
     * of the parent's model history; one whose stop was never recorded shows as cancelled.
     */
    @Test
    void aSubagentReplaysAsItsOwnSessionOutOfTheParentsHistory() {
        List<cn.agentao.agent.core.content.ContentBlock> prompt = List.of(cn.agentao.agent.core.content.ContentBlock.text("go"));
        List<ObjectNode> lines = List.of(
                line(new cn.agentao.agent.core.record.EngineRecord.UserMessage(prompt, false)),
                line(new cn.agentao.agent.core.record.EngineRecord.Subagent("p/general-purpose-1", "Agent general-purpose", "look", "running", null)),
                line(new cn.agentao.agent.core.record.EngineRecord.ChildRecord("p/general-purpose-1",
                        new cn.agentao.agent.core.record.EngineRecord.UserMessage(List.of(cn.agentao.agent.core.content.ContentBlock.text("Look it up")), false))),
                line(new cn.agentao.agent.core.record.EngineRecord.ChildRecord("p/general-purpose-1",
                        new cn.agentao.agent.core.record.EngineRecord.ModelMessage(AiMessage.from("Found it.")))),
                line(new cn.agentao.agent.core.record.EngineRecord.ModelMessage(AiMessage.from("Done."))));

        SessionReplay.Restored r = SessionReplay.restore("p", lines);

        assertEquals(List.of("go", "Done."), r.history().stream().map(m -> m instanceof UserMessage u ? u.singleText() : ((AiMessage) m).text()).toList(),
                "the child's messages are not the parent's");
        assertEquals(List.of("UserMessage", "SubagentChanged", "ChildEvent", "ChildEvent", "MessageChunk"),
                r.events().stream().map(e -> e.getClass().getSimpleName()).toList());
        AgentEvent.SubagentChanged child = (AgentEvent.SubagentChanged) r.events().get(1);
        assertEquals("idle", child.state());
        assertEquals(cn.agentao.agent.core.content.StopReason.CANCELLED, child.stopReason(), "its stop was never recorded");
        AgentEvent.ChildEvent said = (AgentEvent.ChildEvent) r.events().get(3);
        assertEquals("p/general-purpose-1", said.sessionId());
        assertEquals(AgentEvent.MessageChunk.text("Found it."), said.event());
    }

    /** The replay of the fixture, update by update: what a client is shown on session/load. */
    @Test
    void theGoodFixtureReplaysUpdateByUpdate() throws Exception {
        Files.copy(AgentProcess.home().resolve("sessions-store/fixtures/good.jsonl"), dir.resolve("good.jsonl"));
        List<AgentEvent> updates = SessionReplay.restore(new SessionStore(dir), "good").events();
        List<String> kinds = updates.stream().map(u -> u.getClass().getSimpleName()).toList();
        assertEquals(List.of("UserMessage", "ThoughtChunk", "MessageChunk", "ToolCallStarted",
                "MessageChunk", "UserMessage", "ThoughtChunk", "MessageChunk", "PlanChanged"), kinds);
        AgentEvent.ToolCallStarted call = (AgentEvent.ToolCallStarted) updates.get(3);
        assertEquals("completed", call.status().wire(), "the call is shown once, as it ended");
        assertEquals(1, call.rawOutput().path("exitCode").asInt());
        assertEquals("mvn test", call.rawInput().path("command").asText());
        assertTrue(Json.mapper().valueToTree(call.content()).toString().contains("Tests run: 4, Failures: 1"));
        assertEquals(2, ((AgentEvent.PlanChanged) updates.get(8)).entries().size());
    }

    /** A log in the older shapes, cut off by a crash during a tool call, still reopens into a usable session. */
    @Test
    void anOldLogCutOffDuringAToolCallReopens() throws Exception {
        Files.copy(AgentProcess.home().resolve("sessions-store/fixtures/old-shapes.jsonl"), dir.resolve("old-shapes.jsonl"));
        SessionReplay.Restored r = SessionReplay.restore(new SessionStore(dir), "old-shapes");
        assertEquals("List the files.", ((UserMessage) r.history().get(0)).singleText());
        ToolExecutionResultMessage filled = assertInstanceOf(ToolExecutionResultMessage.class, r.history().get(2));
        assertEquals("call_9", filled.id());
        assertTrue(filled.text().startsWith("Not run"), filled.text());
        AgentEvent.ToolCallStarted call = r.events().stream().filter(u -> u instanceof AgentEvent.ToolCallStarted)
                .map(u -> (AgentEvent.ToolCallStarted) u).findFirst().orElseThrow();
        assertEquals("failed", call.status().wire(), "a call left running shows as failed");
    }

    /**
     * A prompt may be as large as an ACP message (100 MB by default); its model message and a compaction that
     * carries it must read back (LangChain4j's own reader stops at 20 MB strings).
     */
    @Test
    void recordsReadBackWhateverSizeTheyWereWrittenWith() {
        String big = "a large prompt ".repeat(1_500_000); // 22.5 million characters
        SessionStore store = new SessionStore(dir, SyncPolicy.NO_FSYNC);
        try (SessionWriter w = store.create("big", dir, null)) {
            ObjectNode prompt = Json.object();
            prompt.putArray("content").addObject().put("type", "text").put("text", big);
            w.append(RecordTypes.USER_MESSAGE, prompt);
            w.append(RecordTypes.MODEL_MESSAGE, Json.object().put("message", ChatMessageJson.toJson(AiMessage.from("reply: " + big))));
            ObjectNode compaction = Json.object();
            compaction.putArray("messages").add(ChatMessageJson.toJson(UserMessage.from("summary " + big)))
                    .add(ChatMessageJson.toJson(AiMessage.from("Understood.")));
            w.append(RecordTypes.COMPACTION, compaction);
        }
        SessionReplay.Restored r = SessionReplay.restore(store, "big");
        assertEquals(2, r.history().size(), "the compaction replaced the history");
        assertEquals("summary " + big, ((UserMessage) r.history().get(0)).singleText());
        assertTrue(r.events().stream().anyMatch(u -> u instanceof AgentEvent.MessageChunk a
                && a.content().toString().length() > big.length()), "the large model reply replays");
    }
}
