package cn.agentao.agent.util;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * JSON for the whole process: the one Jackson mapper (tolerant of unknown fields, omits absent optionals), built
 * on first use, and what needs no mapper: trees, the generator factory, the limits.
 *
 * <p>The mapper is built lazily on purpose: its class initialisation alone (a default date format with its locale
 * and calendar data) and its first bean serialisers (annotation proxies spun at run time) cost about 3 MB of heap
 * and several milliseconds, and an editor's start (initialize, session/new) needs none of it: protocol lines are
 * read by {@link JsonTreeParser} and written by {@link JsonWriter}.
 */
public final class Json {
    /** Deepest nesting we parse; deeper input is a parse error, never a stack overflow. */
    public static final int MAX_NESTING_DEPTH = 500;

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

    /** Streaming generators (and parsers) without a mapper; writers never close the stream they are given. */
    public static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(READ_CONSTRAINTS)
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .build();

    private Json() {}

    /** The process's mapper, built the first time it is asked for. */
    public static ObjectMapper mapper() {
        return Mapper.INSTANCE;
    }

    /**
     * Runs the class initialisation every Jackson parser shares, once per process: its {@code BigDecimal} constants
     * set off JDK 25's {@code BigDecimal.<clinit>}, which computes 5^(2^16) (~12 ms of CPU, 2 MB of garbage).
     * Called off the critical path by whoever is about to parse (a turn about to read the model's stream).
     */
    public static void initParsers() {
        try (var p = FACTORY.createParser(new byte[0])) {
            p.nextToken();
        } catch (java.io.IOException e) {
            // an empty input: nothing to read, nothing to fail
        }
    }

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    public static ArrayNode array() {
        return JsonNodeFactory.instance.arrayNode();
    }

    /** Puts a string member, left out when {@code value} is null (as the mapper's NON_NULL inclusion does). */
    public static void putIfPresent(ObjectNode n, String field, String value) {
        if (value != null) n.put(field, value);
    }

    private static final class Mapper {
        static final ObjectMapper INSTANCE = JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .serializationInclusion(JsonInclude.Include.NON_NULL)
                .build();

        static {
            INSTANCE.getFactory().setStreamReadConstraints(READ_CONSTRAINTS);
        }
    }
}
