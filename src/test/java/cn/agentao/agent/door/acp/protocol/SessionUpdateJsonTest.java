package cn.agentao.agent.door.acp.protocol;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.JsonGenerator;
import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The updates written by hand (streamed text, the command list) come out exactly as the mapper writes them from the
 * annotated records; the others still go through the mapper. So the two paths cannot drift apart unnoticed.
 */
class SessionUpdateJsonTest {

    private static String ours(SessionUpdate u) throws Exception {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = Json.FACTORY.createGenerator(out)) {
            SessionUpdateJson.write(g, u);
        }
        return out.toString();
    }

    private static String mapped(SessionUpdate u) throws Exception {
        return Json.mapper().writerFor(SessionUpdate.class).writeValueAsString(u);
    }

    @Test
    void textChunksAsTheMapperWritesThem() throws Exception {
        for (String text : List.of("", "plain", "quote \" \\ \n\t\u0001 é 中 😀 \u2028")) {
            for (SessionUpdate u : List.of(SessionUpdate.AgentMessageChunk.text(text), SessionUpdate.AgentThoughtChunk.text(text),
                    new SessionUpdate.UserMessageChunk(ContentBlock.text(text)))) {
                assertEquals(mapped(u), ours(u), u.toString());
            }
        }
    }

    @Test
    void commandListAndTitleAsTheMapperWritesThem() throws Exception {
        SessionUpdate u = new SessionUpdate.AvailableCommandsUpdate(List.of(
                new SessionUpdate.AvailableCommand("compact", "Summarise older turns", null),
                new SessionUpdate.AvailableCommand("model", "Switch the model", new SessionUpdate.CommandInput("provider/model")),
                new SessionUpdate.AvailableCommand("odd", null, new SessionUpdate.CommandInput(null))));
        assertEquals(mapped(u), ours(u));
        SessionUpdate none = new SessionUpdate.AvailableCommandsUpdate(null);
        assertEquals(mapped(none), ours(none));
        for (SessionUpdate info : List.of(new SessionUpdate.SessionInfoUpdate("Fix the \"build\"", "2026-11-23T12:00:00Z"),
                new SessionUpdate.SessionInfoUpdate(null, null))) {
            assertEquals(mapped(info), ours(info));
        }
    }

    @Test
    void otherUpdatesGoThroughTheMapperWithTheirTypeName() throws Exception {
        ContentBlock annotated = new ContentBlock.Text("t", Json.object().put("priority", 1), null);
        for (SessionUpdate u : List.of(new SessionUpdate.AgentMessageChunk(annotated), new SessionUpdate.CurrentModeUpdate("plan"),
                new SessionUpdate.Plan(List.of()), new SessionUpdate.UsageUpdate(5, 10, new SessionUpdate.Cost(0.5, "USD")))) {
            String out = ours(u);
            assertEquals(mapped(u), out);
            assertEquals(true, out.startsWith("{\"sessionUpdate\":\""), out);
        }
    }

    @Test
    void modesAndConfigOptionsTreesAsTheMapperMakesThem() {
        SessionMode.State modes = new SessionMode.State("plan", List.of(new SessionMode("plan", "Plan", "Reads"),
                new SessionMode("x", "X", null)));
        assertEquals(Json.mapper().valueToTree(modes), modes.toTree());
        List<ConfigOption> options = List.of(
                ConfigOption.select("mode", "Mode", "Permission preset", "mode", "plan",
                        List.of(new ConfigOption.Choice("plan", "Plan", "Reads"), new ConfigOption.Choice("full", "Full", null))),
                ConfigOption.select("model", "Model", null, "model", "a/b", List.of(new ConfigOption.Choice("a/b", "b", null))));
        assertEquals(Json.mapper().valueToTree(options), ConfigOption.toTree(options));
    }
}
