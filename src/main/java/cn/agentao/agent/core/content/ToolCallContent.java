package cn.agentao.agent.core.content;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** What a tool call shows: content, a diff the editor can open, or an embedded client terminal. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(ToolCallContent.Content.class),
        @JsonSubTypes.Type(ToolCallContent.Diff.class),
        @JsonSubTypes.Type(ToolCallContent.Terminal.class)
})
public sealed interface ToolCallContent {

    static Content text(String text) { return new Content(ContentBlock.text(text), null); }

    @JsonTypeName("content")
    record Content(ContentBlock content, @JsonProperty("_meta") ObjectNode meta) implements ToolCallContent {}

    /** {@code oldText} is null for a new file. */
    @JsonTypeName("diff")
    record Diff(String path, String oldText, String newText, @JsonProperty("_meta") ObjectNode meta)
            implements ToolCallContent {}

    @JsonTypeName("terminal")
    record Terminal(String terminalId, @JsonProperty("_meta") ObjectNode meta) implements ToolCallContent {}
}
