package cn.agentao.agent.model;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ChatMessage;
import java.util.List;

/** One model call: the conversation, the tools offered, and an optional reasoning effort (e.g. {@code high}). */
public record ModelRequest(List<ChatMessage> messages, List<ToolSpecification> tools, String reasoningEffort) {

    public ModelRequest {
        messages = List.copyOf(messages);
        tools = tools == null ? List.of() : List.copyOf(tools);
    }

    public ModelRequest(List<ChatMessage> messages) {
        this(messages, List.of(), null);
    }
}
