package cn.agentao.agent.util;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.POJONode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/**
 * Writes a value to a streaming generator: trees, strings, numbers, booleans and {@link Writable} values by hand,
 * anything else through the mapper. The protocol's envelopes and its most frequent messages (streamed text, the
 * answers of initialize and session/new) are written without the mapper, so a process that only started and opened
 * a session never builds it (see {@link Json}); the output is what the mapper would write.
 */
public final class JsonWriter {
    private JsonWriter() {}

    /** A value that writes itself as one JSON value. */
    public interface Writable {
        void writeJson(JsonGenerator g) throws IOException;
    }

    public static void write(JsonGenerator g, Object value) throws IOException {
        switch (value) {
            case null -> g.writeNull();
            case Writable w -> w.writeJson(g);
            case JsonNode n -> writeTree(g, n);
            case String s -> g.writeString(s);
            case Boolean b -> g.writeBoolean(b);
            case Integer i -> g.writeNumber(i);
            case Long l -> g.writeNumber(l);
            default -> Json.mapper().writeValue(g, value);
        }
    }

    /** One value as one line: compact JSON (which has no raw newlines) and a newline. */
    public static byte[] line(Object value) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(256);
        try (JsonGenerator g = Json.FACTORY.createGenerator(buf)) {
            write(g, value);
        }
        buf.write('\n');
        return buf.toByteArray();
    }

    /** A string field, left out when {@code value} is null (the mapper's NON_NULL inclusion). */
    public static void stringField(JsonGenerator g, String name, String value) throws IOException {
        if (value != null) g.writeStringField(name, value);
    }

    /** A tree as Jackson writes it (null members included: a tree holds what it was given). */
    public static void writeTree(JsonGenerator g, JsonNode n) throws IOException {
        switch (n.getNodeType()) {
            case OBJECT -> {
                g.writeStartObject();
                for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    g.writeFieldName(e.getKey());
                    writeTree(g, e.getValue());
                }
                g.writeEndObject();
            }
            case ARRAY -> {
                g.writeStartArray();
                for (JsonNode item : n) writeTree(g, item);
                g.writeEndArray();
            }
            case STRING -> g.writeString(n.textValue());
            case BOOLEAN -> g.writeBoolean(n.booleanValue());
            case NUMBER -> {
                switch (n.numberType()) {
                    case INT -> g.writeNumber(n.intValue());
                    case LONG -> g.writeNumber(n.longValue());
                    case BIG_INTEGER -> g.writeNumber(n.bigIntegerValue());
                    case FLOAT -> g.writeNumber(n.floatValue());
                    case DOUBLE -> g.writeNumber(n.doubleValue());
                    default -> g.writeNumber(n.decimalValue());
                }
            }
            case POJO -> write(g, ((POJONode) n).getPojo());
            case BINARY -> g.writeBinary(n.binaryValue());
            case NULL, MISSING -> g.writeNull();
        }
    }
}
