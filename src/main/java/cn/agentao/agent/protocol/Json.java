package cn.agentao.agent.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The one Jackson mapper of the process: tolerant of unknown fields, omits absent optionals. */
public final class Json {
    /** Deepest nesting we parse; deeper input is a parse error, never a stack overflow. */
    public static final int MAX_NESTING_DEPTH = 500;

    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    /**
     * What any JSON we read may hold: strings as long as a message may be (the message size limit bounds them),
     * nesting bounded. Every mapper of the process that reads what we wrote uses these, so whatever was written
     * can be read back.
     */
    public static final StreamReadConstraints READ_CONSTRAINTS = StreamReadConstraints.builder()
            .maxNestingDepth(MAX_NESTING_DEPTH)
            .maxStringLength(Integer.MAX_VALUE)
            .maxNumberLength(1000)
            .maxDocumentLength(-1)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(READ_CONSTRAINTS);
    }

    private Json() {}

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** Built on first use: start-up does not need them. */
    private static final class Writers {
        static final com.fasterxml.jackson.databind.ObjectWriter CONTENT_BLOCKS =
                MAPPER.writerFor(new com.fasterxml.jackson.core.type.TypeReference<java.util.List<ContentBlock>>() {});
        static final com.fasterxml.jackson.databind.ObjectWriter CONTENT_BLOCK = MAPPER.writerFor(ContentBlock.class);
    }

    /** Content blocks as a tree, with their {@code type} (plain valueToTree loses it to erasure). */
    public static com.fasterxml.jackson.databind.JsonNode tree(java.util.List<ContentBlock> blocks) {
        return tree(Writers.CONTENT_BLOCKS, blocks);
    }

    public static com.fasterxml.jackson.databind.JsonNode tree(ContentBlock block) {
        return tree(Writers.CONTENT_BLOCK, block);
    }

    private static com.fasterxml.jackson.databind.JsonNode tree(com.fasterxml.jackson.databind.ObjectWriter writer, Object value) {
        try {
            com.fasterxml.jackson.databind.util.TokenBuffer buffer = new com.fasterxml.jackson.databind.util.TokenBuffer(MAPPER, false);
            writer.writeValue(buffer, value);
            return MAPPER.readTree(buffer.asParser());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
