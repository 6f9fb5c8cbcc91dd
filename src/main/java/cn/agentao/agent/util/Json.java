package cn.agentao.agent.util;

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
}
