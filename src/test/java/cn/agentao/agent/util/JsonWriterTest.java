package cn.agentao.agent.util;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link JsonWriter} writes what the mapper writes, byte for byte, without building it for trees and its own values. */
class JsonWriterTest {

    private static String mapped(Object v) throws Exception {
        return new String(Json.mapper().writeValueAsBytes(v), StandardCharsets.UTF_8) + "\n"; // the byte (UTF-8) generator, as on the wire
    }

    private static String ours(Object v) throws Exception {
        return new String(JsonWriter.line(v), StandardCharsets.UTF_8);
    }

    @Test
    void treesOfEveryKindAreWrittenAsTheMapperWritesThem() throws Exception {
        ObjectNode o = Json.object();
        o.put("s", "plain").put("esc", "quote \" backslash \\ newline \n tab \t nul \u0000 bell \u0007")
                .put("unicode", "é 中文 😀 \u2028").put("i", Integer.MIN_VALUE).put("l", Long.MAX_VALUE)
                .put("big", new BigInteger("123456789012345678901234567890")).put("d", 0.1).put("neg", -2.5e-300)
                .put("f", 1.5f).put("dec", new BigDecimal("3.14159265358979323846264338327950288"))
                .put("t", true).put("f2", false).putNull("n").put("bin", new byte[]{1, 2, 3, (byte) 255});
        o.putArray("empty");
        o.putObject("emptyObj");
        ArrayNode a = o.putArray("mixed");
        a.add(1).add("two").addNull().addObject().put("deep", Json.array().add(Json.array().add(3)).toString());
        o.putPOJO("pojo", Map.of("k", List.of(1, 2)));
        assertEquals(mapped(o), ours(o));
    }

    @Test
    void randomTreesMatchTheMapper() throws Exception {
        Random r = new Random(19);
        for (int i = 0; i < 500; i++) {
            JsonNode n = random(r, 0);
            assertEquals(mapped(n), ours(n), "tree " + i);
        }
    }

    @Test
    void plainValuesAndWritablesAndOtherObjects() throws Exception {
        for (Object v : new Object[]{null, "x\"y", true, 42, -7L, 2.5, List.of("a", 1), Map.of("k", "v")}) {
            assertEquals(mapped(v), ours(v), String.valueOf(v));
        }
        JsonWriter.Writable w = (JsonGenerator g) -> {
            g.writeStartObject();
            g.writeStringField("own", "yes");
            g.writeEndObject();
        };
        assertEquals("{\"own\":\"yes\"}\n", ours(w));
        record Rec(String a, Integer b, String absent) {}
        assertEquals("{\"a\":\"x\",\"b\":1}\n", ours(new Rec("x", 1, null)), "records go through the mapper (absent fields left out)");
    }

    private static JsonNode random(Random r, int depth) {
        int kind = depth > 4 ? r.nextInt(6) : r.nextInt(8);
        return switch (kind) {
            case 0 -> com.fasterxml.jackson.databind.node.TextNode.valueOf(randomString(r));
            case 1 -> com.fasterxml.jackson.databind.node.IntNode.valueOf(r.nextInt());
            case 2 -> com.fasterxml.jackson.databind.node.LongNode.valueOf(r.nextLong());
            case 3 -> com.fasterxml.jackson.databind.node.DoubleNode.valueOf(r.nextDouble() * Math.pow(10, r.nextInt(40) - 20));
            case 4 -> com.fasterxml.jackson.databind.node.BooleanNode.valueOf(r.nextBoolean());
            case 5 -> com.fasterxml.jackson.databind.node.NullNode.instance;
            case 6 -> {
                ArrayNode a = Json.array();
                for (int i = r.nextInt(5); i > 0; i--) a.add(random(r, depth + 1));
                yield a;
            }
            default -> {
                ObjectNode o = Json.object();
                for (int i = r.nextInt(5); i > 0; i--) o.set(randomString(r), random(r, depth + 1));
                yield o;
            }
        };
    }

    private static String randomString(Random r) {
        StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(12); i > 0; i--) {
            int c = switch (r.nextInt(4)) {
                case 0 -> r.nextInt(0x20);
                case 1 -> 0x20 + r.nextInt(0x60);
                case 2 -> 0xA0 + r.nextInt(0x2000);
                default -> 0x1F600 + r.nextInt(0x50);
            };
            b.appendCodePoint(c);
        }
        return b.toString();
    }
}
