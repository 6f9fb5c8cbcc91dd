package cn.agentao.agent.util;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** {@link JsonTreeParser} builds the tree Jackson's readTree builds, node classes included, and refuses what it refuses. */
class JsonTreeParserTest {

    private static JsonNode jackson(byte[] b) throws Exception {
        return Json.mapper().readTree(b);
    }

    private static JsonNode ours(byte[] b) throws Exception {
        return JsonTreeParser.parse(b, 0, b.length);
    }

    /** Equal trees, and equal node classes all the way down (IntNode is not LongNode), in the same member order. */
    private static void assertSame(JsonNode expected, JsonNode actual, String what) {
        assertEquals(expected, actual, what);
        assertEquals(expected.getClass(), actual.getClass(), what + ": node class");
        if (expected.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> e = expected.fields(), a = actual.fields();
            while (e.hasNext()) {
                Map.Entry<String, JsonNode> x = e.next(), y = a.next();
                assertEquals(x.getKey(), y.getKey(), what + ": member order");
                assertSame(x.getValue(), y.getValue(), what + "." + x.getKey());
            }
        } else if (expected.isArray()) {
            for (int k = 0; k < expected.size(); k++) assertSame(expected.get(k), actual.get(k), what + "[" + k + "]");
        }
    }

    private static void same(String json) throws Exception {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        assertSame(jackson(b), ours(b), json);
    }

    @Test
    void everyKindOfValueAsReadTreeBuildsIt() throws Exception {
        for (String json : List.of("0", "-0", "1", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649",
                "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                "123456789012345678901234567890", "1000000000", "999999999999999999", "1.5", "-0.0", "1e2", "1E-2", "1.25e+300",
                "1e400", "0.1", "true", "false", "null", "\"\"", "\"plain\"", "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\u00e9 \\uD83D\\uDE00\"",
                "\"lone \\uD800 surrogate\"", "\"é 中文 😀 \u2028\"", "[]", "{}", "[1,[2,[3,[]]],{}]", " \t\r\n{ \"a\" : 1 , \"b\" : [ true , null ] } \n",
                "{\"a\":1,\"b\":2,\"a\":3}", "{\"\":\"empty name\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"s\",\"prompt\":[{\"type\":\"text\",\"text\":\"hi\"},{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgo=\"}]}}")) {
            same(json);
        }
    }

    @Test
    void randomDocumentsWrittenByTheMapperReadBackTheSame() throws Exception {
        Random r = new Random(19);
        for (int k = 0; k < 2000; k++) {
            JsonNode n = random(r, 0);
            byte[] b = Json.mapper().writeValueAsBytes(n);
            assertSame(jackson(b), ours(b), "document " + k);
        }
    }

    @Test
    void malformedInputIsRefusedByBothWithAMessage() throws Exception {
        List<String> bad = new ArrayList<>(List.of("01", "-01", "1.", ".5", "-", "+1", "1e", "1e+", "tru", "truex", "nul", "[1,]", "{\"a\":1,}",
                "{\"a\" 1}", "{a:1}", "{'a':1}", "[1 2]", "{\"a\":1}}", "[1]]", "1 2", "NaN", "Infinity", "[1,,2]", "/* c */ 1", "// c\n1",
                "\"unterminated", "\"bad \\x escape\"", "\"bad \\u12G4\"", "\"tab\there\"", "\"nl\nhere\"", "[", "{", "{\"a\"", "{\"a\":",
                "\"\\u12\"", "]", "}", ",", ":"));
        bad.add("[".repeat(Json.MAX_NESTING_DEPTH + 1) + "]".repeat(Json.MAX_NESTING_DEPTH + 1));
        for (String json : bad) {
            byte[] b = json.getBytes(StandardCharsets.UTF_8);
            assertThrows(Exception.class, () -> jackson(b), "Jackson accepts " + json);
            JsonTreeParser.SyntaxError e = assertThrows(JsonTreeParser.SyntaxError.class, () -> ours(b), json);
            assertTrue(e.getMessage().contains("at offset"), e.getMessage());
        }
        same("[".repeat(Json.MAX_NESTING_DEPTH) + "]".repeat(Json.MAX_NESTING_DEPTH));
    }

    @Test
    void truncationsOfAValidDocumentAreRefused() throws Exception {
        byte[] doc = "{\"a\":[1,-2.5e3,\"x\\u00e9y\",true,false,null,{\"b\":\"中\"}],\"c\":{}}".getBytes(StandardCharsets.UTF_8);
        for (int len = 1; len < doc.length; len++) {
            byte[] cut = java.util.Arrays.copyOf(doc, len);
            assertThrows(JsonTreeParser.SyntaxError.class, () -> ours(cut), "cut at " + len);
        }
    }

    @Test
    void invalidUtf8IsRefused() {
        for (int[] bytes : new int[][]{{0x80}, {0xC3}, {0xC3, 0x28}, {0xC0, 0x80}, {0xE0, 0x80, 0x80}, {0xED, 0xA0, 0x80},
                {0xF4, 0x90, 0x80, 0x80}, {0xF8, 0x88, 0x80, 0x80, 0x80}, {0xFF}, {0xE2, 0x82}}) {
            byte[] b = new byte[bytes.length + 2];
            b[0] = '"';
            for (int k = 0; k < bytes.length; k++) b[k + 1] = (byte) bytes[k];
            b[b.length - 1] = '"';
            assertThrows(JsonTreeParser.SyntaxError.class, () -> ours(b), java.util.Arrays.toString(bytes));
        }
    }

    @Test
    void mutatedDocumentsAgreeWithJacksonWheneverEitherAccepts() throws Exception {
        Random r = new Random(7);
        int agreedValid = 0;
        for (int k = 0; k < 3000; k++) {
            byte[] b = Json.mapper().writeValueAsBytes(random(r, 0));
            for (int m = 1 + r.nextInt(3); m > 0 && b.length > 0; m--) {
                int at = r.nextInt(b.length);
                b[at] = (byte) MUTATIONS.charAt(r.nextInt(MUTATIONS.length()));
            }
            JsonNode j = null, o = null;
            try {
                j = jackson(b);
            } catch (Exception e) {
                // refused
            }
            try {
                o = ours(b);
            } catch (JsonTreeParser.SyntaxError e) {
                // refused
            } catch (Exception e) {
                fail("not a SyntaxError for " + new String(b, StandardCharsets.ISO_8859_1) + ": " + e);
            }
            if (j != null && !j.isMissingNode() && o != null) {
                assertSame(j, o, new String(b, StandardCharsets.ISO_8859_1));
                agreedValid++;
            } else if (o != null && !o.isMissingNode()) {
                fail("we accept what Jackson refuses: " + new String(b, StandardCharsets.ISO_8859_1));
            } else if (j != null && !j.isMissingNode() && isUtf8(b)) {
                fail("we refuse what Jackson accepts: " + new String(b, StandardCharsets.ISO_8859_1));
            }
        }
        assertTrue(agreedValid > 100, "enough mutations stayed valid to compare: " + agreedValid);
    }

    @Test
    void blankInputIsMissingAndDeepInputIsNoStackOverflowOnAVirtualThread() throws Exception {
        assertTrue(JsonTreeParser.parse("").isMissingNode());
        assertTrue(JsonTreeParser.parse(" \n\t ").isMissingNode());
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                String deep = "{\"a\":".repeat(Json.MAX_NESTING_DEPTH) + "1" + "}".repeat(Json.MAX_NESTING_DEPTH);
                assertFalse(JsonTreeParser.parse(deep).isMissingNode());
                assertThrows(JsonTreeParser.SyntaxError.class, () -> JsonTreeParser.parse("[".repeat(100_000)));
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        t.join();
        if (failure[0] != null) throw new AssertionError(failure[0]);
    }

    private static final String MUTATIONS = "{}[]\",:0123456789-.eE+ tfnrux\\\u00ff";

    private static boolean isUtf8(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }

    private static JsonNode random(Random r, int depth) {
        int kind = depth > 5 ? r.nextInt(7) : r.nextInt(9);
        return switch (kind) {
            case 0 -> com.fasterxml.jackson.databind.node.TextNode.valueOf(randomString(r));
            case 1 -> com.fasterxml.jackson.databind.node.IntNode.valueOf(r.nextInt());
            case 2 -> com.fasterxml.jackson.databind.node.LongNode.valueOf(r.nextLong());
            case 3 -> com.fasterxml.jackson.databind.node.DoubleNode.valueOf(r.nextDouble() * Math.pow(10, r.nextInt(600) - 300));
            case 4 -> com.fasterxml.jackson.databind.node.BigIntegerNode.valueOf(new java.math.BigInteger(70 + r.nextInt(100), r).negate());
            case 5 -> com.fasterxml.jackson.databind.node.BooleanNode.valueOf(r.nextBoolean());
            case 6 -> com.fasterxml.jackson.databind.node.NullNode.instance;
            case 7 -> {
                ArrayNode a = Json.array();
                for (int k = r.nextInt(5); k > 0; k--) a.add(random(r, depth + 1));
                yield a;
            }
            default -> {
                ObjectNode o = Json.object();
                for (int k = r.nextInt(5); k > 0; k--) o.set(randomString(r), random(r, depth + 1));
                yield o;
            }
        };
    }

    private static String randomString(Random r) {
        StringBuilder b = new StringBuilder();
        for (int k = r.nextInt(12); k > 0; k--) {
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
