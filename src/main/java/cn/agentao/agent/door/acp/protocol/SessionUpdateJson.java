package cn.agentao.agent.door.acp.protocol;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.JsonWriter;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectWriter;

import java.io.IOException;

/**
 * Writes a {@link SessionUpdate} as ACP's {@code update} object. What a session sends most, and first, is written
 * by hand: streamed text (every chunk of every answer), the command list (sent by session/new, so an editor's start
 * needs no mapper) and the title (set as the first turn starts, before the model is called); the rest go through
 * the mapper, which reads the type names from the annotations.
 * {@code SessionUpdateJsonTest} holds both paths to the same output.
 */
public final class SessionUpdateJson {
    private SessionUpdateJson() {}

    public static void write(JsonGenerator g, SessionUpdate update) throws IOException {
        switch (update) {
            case SessionUpdate.AgentMessageChunk c when ContentBlock.plainText(c.content()) -> text(g, "agent_message_chunk", (ContentBlock.Text) c.content());
            case SessionUpdate.AgentThoughtChunk c when ContentBlock.plainText(c.content()) -> text(g, "agent_thought_chunk", (ContentBlock.Text) c.content());
            case SessionUpdate.UserMessageChunk c when ContentBlock.plainText(c.content()) -> text(g, "user_message_chunk", (ContentBlock.Text) c.content());
            case SessionUpdate.AvailableCommandsUpdate u -> commands(g, u);
            case SessionUpdate.SessionInfoUpdate u -> {
                g.writeStartObject();
                g.writeStringField("sessionUpdate", "session_info_update");
                JsonWriter.stringField(g, "title", u.title());
                JsonWriter.stringField(g, "updatedAt", u.updatedAt());
                g.writeEndObject();
            }
            default -> Mapped.WRITER.writeValue(g, update);
        }
    }

    private static void text(JsonGenerator g, String kind, ContentBlock.Text t) throws IOException {
        g.writeStartObject();
        g.writeStringField("sessionUpdate", kind);
        g.writeObjectFieldStart("content");
        g.writeStringField("type", "text");
        g.writeStringField("text", t.text());
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void commands(JsonGenerator g, SessionUpdate.AvailableCommandsUpdate u) throws IOException {
        g.writeStartObject();
        g.writeStringField("sessionUpdate", "available_commands_update");
        if (u.availableCommands() != null) {
            g.writeArrayFieldStart("availableCommands");
            for (SessionUpdate.AvailableCommand c : u.availableCommands()) {
                g.writeStartObject();
                JsonWriter.stringField(g, "name", c.name());
                JsonWriter.stringField(g, "description", c.description());
                if (c.input() != null) {
                    g.writeObjectFieldStart("input");
                    JsonWriter.stringField(g, "hint", c.input().hint());
                    g.writeEndObject();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    /** Built on first use: the mapper is not needed until an update other than the above is sent. */
    private static final class Mapped {
        static final ObjectWriter WRITER = Json.mapper().writerFor(SessionUpdate.class);
    }
}
