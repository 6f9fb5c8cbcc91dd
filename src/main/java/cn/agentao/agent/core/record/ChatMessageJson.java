package cn.agentao.agent.core.record;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.JacksonChatMessageJsonCodec;

/**
 * Model history messages as the JSON the store keeps ({@code model_message}, {@code compaction} records):
 * LangChain4j's own format, read with the process's limits ({@link Json#READ_CONSTRAINTS}). LangChain4j's
 * {@code ChatMessageDeserializer} refuses strings over 20 MB, so a large prompt could be written but never
 * read back; this reads whatever was written.
 */
public final class ChatMessageJson {
    private static final ObjectMapper MAPPER = mapper();

    private ChatMessageJson() {}

    private static ObjectMapper mapper() {
        ObjectMapper m = JacksonChatMessageJsonCodec.chatMessageJsonMapperBuilder().build();
        m.getFactory().setStreamReadConstraints(Json.READ_CONSTRAINTS);
        return m;
    }

    public static String toJson(ChatMessage message) {
        try {
            return MAPPER.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write a " + message.type() + " message as JSON: " + e.getMessage(), e);
        }
    }

    public static ChatMessage fromJson(String json) {
        try {
            return MAPPER.readValue(json, ChatMessage.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a model message: " + e.getOriginalMessage(), e);
        }
    }
}
