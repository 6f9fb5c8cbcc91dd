package cn.agentao.agent.core.content;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** ACP content blocks (MCP-compatible): prompts, streamed output and tool results. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(ContentBlock.Text.class),
        @JsonSubTypes.Type(ContentBlock.Image.class),
        @JsonSubTypes.Type(ContentBlock.Audio.class),
        @JsonSubTypes.Type(ContentBlock.ResourceLink.class),
        @JsonSubTypes.Type(ContentBlock.Resource.class)
})
public sealed interface ContentBlock {

    static Text text(String text) { return new Text(text, null, null); }

    @JsonTypeName("text")
    record Text(String text, JsonNode annotations, @JsonProperty("_meta") ObjectNode meta) implements ContentBlock {}

    @JsonTypeName("image")
    record Image(String data, String mimeType, String uri, JsonNode annotations,
                 @JsonProperty("_meta") ObjectNode meta) implements ContentBlock {}

    @JsonTypeName("audio")
    record Audio(String data, String mimeType, JsonNode annotations,
                 @JsonProperty("_meta") ObjectNode meta) implements ContentBlock {}

    @JsonTypeName("resource_link")
    record ResourceLink(String uri, String name, String title, String description, String mimeType, Long size,
                        JsonNode annotations, @JsonProperty("_meta") ObjectNode meta) implements ContentBlock {}

    /** Embedded resource; {@code resource} holds {uri, mimeType?, text} or {uri, mimeType?, blob}. */
    @JsonTypeName("resource")
    record Resource(ObjectNode resource, JsonNode annotations,
                    @JsonProperty("_meta") ObjectNode meta) implements ContentBlock {}

    /** Built on first use: start-up does not need them. */
    final class Writers {
        static final com.fasterxml.jackson.databind.ObjectWriter CONTENT_BLOCKS =
                Json.mapper().writerFor(new com.fasterxml.jackson.core.type.TypeReference<java.util.List<ContentBlock>>() {});
        static final com.fasterxml.jackson.databind.ObjectWriter CONTENT_BLOCK = Json.mapper().writerFor(ContentBlock.class);
    }

    /**
     * Content blocks as a tree, with their {@code type} (plain valueToTree loses it to erasure). Plain text, what
     * nearly every prompt and answer is, is built by hand: a session's first record needs no mapper.
     */
    public static com.fasterxml.jackson.databind.JsonNode toTree(java.util.List<ContentBlock> blocks) {
        if (!blocks.stream().allMatch(ContentBlock::plainText)) return tree(Writers.CONTENT_BLOCKS, blocks);
        com.fasterxml.jackson.databind.node.ArrayNode all = Json.array();
        for (ContentBlock b : blocks) all.add(plainTextTree((Text) b));
        return all;
    }

    public static com.fasterxml.jackson.databind.JsonNode toTree(ContentBlock block) {
        return plainText(block) ? plainTextTree((Text) block) : tree(Writers.CONTENT_BLOCK, block);
    }

    /** Text without annotations or {@code _meta}: {@code {"type":"text","text":…}}. */
    public static boolean plainText(ContentBlock block) {
        return block instanceof Text t && t.text() != null && t.annotations() == null && t.meta() == null;
    }

    private static ObjectNode plainTextTree(Text t) {
        return Json.object().put("type", "text").put("text", t.text());
    }

    private static com.fasterxml.jackson.databind.JsonNode tree(com.fasterxml.jackson.databind.ObjectWriter writer, Object value) {
        try {
            com.fasterxml.jackson.databind.util.TokenBuffer buffer = new com.fasterxml.jackson.databind.util.TokenBuffer(Json.mapper(), false);
            writer.writeValue(buffer, value);
            return Json.mapper().readTree(buffer.asParser());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
