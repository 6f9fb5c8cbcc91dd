package cn.agentao.agent.util;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** JsonTreeParser builds exactly the tree {@code Json.mapper().readTree} builds, and rejects what it rejects. */
class JsonTreeParserTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    // ---- valid documents: same tree, same node classes, same key order ----

    static Stream<String> validDocuments() {
        return Stream.concat(Stream.of(
                "0", "-0", "1", "-1", "7", "123456789", "-123456789",
                "2147483647", "2147483648", "-2147483648", "-2147483649",
                "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                "999999999999999999", "1000000000000000000", "-999999999999999999", "9999999999999999999",
                "123456789012345678901234567890", "-123456789012345678901234567890",
                "0.0", "-0.0", "1.5", "-1.5e10", "1E400", "-1e400", "1e-400", "2.2250738585072014E-308", "4.9e-324",
                "1.7976931348623157e308", "0e0", "0E+0", "1e-0", "123.456e-78", "0.1", "100.0e+2", "3.141592653589793238462643",
                "true", "false", "null",
                "\"\"", "\"abc\"", "\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\"a\\u0000b\\u001f\\u007f\"",
                "\"\\u00e9\\u4E2D\\uD83D\\uDE00\"", "\"\\uD800\"", "\"\\uDC00x\"", "\"\\uDE00\\uD83D\"", "\"\\uD83D\\u0041\"",
                "\"\u00e9\u4e2d\uD83D\uDE00\u007f\uFFFF\u2028\"", "\"\u0080\u07ff\u0800\uDBFF\uDFFF\"",
                "[]", "{}", "[[]]", "[{}]", "{\"a\":{}}", "{\"a\":[]}", "[[[[[[1]]]]]]",
                " [ 1 , 2 ] ", "\t\n\r{\"a\" : [ true , false , null ] }\r\n",
                "[1,-1,2.5,\"x\",true,false,null,[],{},[1,[2,[3]]]]",
                "{\"a\":1,\"b\":2,\"a\":3}", "{\"a\":1,\"a\":{\"x\":[1]},\"b\":[],\"a\":[2]}",
                "{\"\\u0000\":1,\"\u00e9\":2,\"\uD83D\uDE00\":3,\"\\uD83D\\uDE00\":4,\"\":5,\"a\\\"b\":6}",
                "{\"z\":1,\"y\":2,\"x\":3,\"w\":4}",
                "[2147483647,2147483648,-2147483649,9223372036854775807,9223372036854775808,-9223372036854775809]"),
                protocolMessages().stream());
    }

    static List<String> protocolMessages() {
        byte[] png = new byte[96 * 1024];
        new Random(7).nextBytes(png);
        return List.of(
                "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,"
                        + "\"clientCapabilities\":{\"fs\":{\"readTextFile\":true,\"writeTextFile\":true},\"terminal\":true},"
                        + "\"clientInfo\":{\"name\":\"zed\",\"title\":\"Zed\",\"version\":\"0.201.0\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{\"cwd\":\"/home/user/project\","
                        + "\"mcpServers\":[{\"name\":\"fs\",\"command\":\"/usr/bin/mcp-fs\",\"args\":[\"--root\",\"/home/user\"],"
                        + "\"env\":[{\"name\":\"TOKEN\",\"value\":\"x\"}]}]}}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"sess_1f2e\","
                        + "\"prompt\":[{\"type\":\"text\",\"text\":\"What is in this picture? \\\"quoted\\\" \\\\ caf\u00e9 \uD83D\uDE00\\n\"},"
                        + "{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"" + Base64.getEncoder().encodeToString(png) + "\"},"
                        + "{\"type\":\"resource_link\",\"uri\":\"file:///home/user/a.txt\",\"name\":\"a.txt\"}]}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"sess_1f2e\",\"update\":"
                        + "{\"sessionUpdate\":\"tool_call\",\"toolCallId\":\"call_1\",\"title\":\"Reading file\",\"kind\":\"read\","
                        + "\"status\":\"pending\",\"locations\":[{\"path\":\"/home/user/a.txt\",\"line\":12}],"
                        + "\"rawInput\":{\"path\":\"a.txt\",\"offset\":0,\"limit\":2000}}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"Invalid params\",\"data\":null}}");
    }

    @ParameterizedTest
    @MethodSource("validDocuments")
    void validDocumentGivesJacksonsTree(String doc) throws Exception {
        byte[] bytes = doc.getBytes(UTF_8);
        JsonNode expected = Json.mapper().readTree(bytes, 0, bytes.length);
        assertSameTree(expected, JsonTreeParser.parse(bytes, 0, bytes.length));
        assertSameTree(Json.mapper().readTree(doc), JsonTreeParser.parse(doc));
        // The same document inside a larger buffer: only [off, off+len) is read.
        byte[] framed = concat("[\"x".getBytes(UTF_8), bytes, "}\u00e9".getBytes(UTF_8));
        assertSameTree(expected, JsonTreeParser.parse(framed, 3, bytes.length));
    }

    @Test
    void integerNodeClassFollowsTheValueAtTheIntAndLongBoundaries() throws Exception {
        assertInstanceOf(com.fasterxml.jackson.databind.node.IntNode.class, parse("2147483647"));
        assertInstanceOf(com.fasterxml.jackson.databind.node.IntNode.class, parse("-2147483648"));
        assertInstanceOf(com.fasterxml.jackson.databind.node.IntNode.class, parse("-0"));
        assertInstanceOf(com.fasterxml.jackson.databind.node.LongNode.class, parse("2147483648"));
        assertInstanceOf(com.fasterxml.jackson.databind.node.LongNode.class, parse("-9223372036854775808"));
        assertInstanceOf(com.fasterxml.jackson.databind.node.BigIntegerNode.class, parse("9223372036854775808"));
        assertEquals(new BigInteger("-9223372036854775809"), parse("-9223372036854775809").bigIntegerValue());
        assertInstanceOf(com.fasterxml.jackson.databind.node.DoubleNode.class, parse("1.0"));
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(parse("-0.0").doubleValue()));
    }

    @Test
    void repeatedKeyKeepsItsFirstPlaceAndTakesTheLastValue() throws Exception {
        JsonNode tree = parse("{\"a\":1,\"b\":2,\"a\":{\"c\":3}}");
        assertEquals(List.of("a", "b"), names(tree));
        assertEquals(3, tree.path("a").path("c").intValue());
    }

    @Test
    void javaStringWithLoneSurrogatesKeepsThemAsJacksonDoes() throws Exception {
        for (String doc : List.of("[\"\uD800\"]", "{\"\uDC00\":\"a\uD83D\"}", "\"\uDE00\uD83D\"", "\"\uD83D\uDE00\"",
                "{\"\\uD800\":1}", "{\"\\uDC00\\uD800\":1}")) {
            assertSameTree(Json.mapper().readTree(doc), JsonTreeParser.parse(doc));
        }
        assertEquals("a\uD800b", JsonTreeParser.parse("\"a\uD800b\"").textValue());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t\r\n ", "\n\n\n"})
    void emptyOrWhitespaceIsTheMissingNode(String doc) throws Exception {
        byte[] bytes = doc.getBytes(UTF_8);
        assertSame(MissingNode.getInstance(), Json.mapper().readTree(bytes, 0, bytes.length));
        assertSame(MissingNode.getInstance(), JsonTreeParser.parse(bytes, 0, bytes.length));
        assertSame(MissingNode.getInstance(), JsonTreeParser.parse(doc));
        assertSame(MissingNode.getInstance(), JsonTreeParser.parse(new byte[] {'[', ' ', ']'}, 1, 1));
    }

    @Test
    void utf8ByteOrderMarkIsSkippedInBytesLikeJacksonButIsAnErrorInAJavaString() throws Exception {
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        for (String doc : List.of("[1]", " ", "7", "{\"a\":\"b\"}")) {
            byte[] bytes = concat(bom, doc.getBytes(UTF_8));
            assertSameTree(Json.mapper().readTree(bytes, 0, bytes.length), JsonTreeParser.parse(bytes, 0, bytes.length));
        }
        assertBothReject(bom);
        assertBothReject(concat(bom, bom, "[1]".getBytes(UTF_8)));
        assertThrows(Exception.class, () -> Json.mapper().readTree("\uFEFF[1]"));
        assertThrows(JsonTreeParser.SyntaxError.class, () -> JsonTreeParser.parse("\uFEFF[1]"));
    }

    // ---- generated documents: whatever Jackson writes, both read back the same ----

    @Test
    void randomDocumentsWrittenByJacksonReadBackToTheSameTree() throws Exception {
        Random random = new Random(19);
        ObjectWriter compact = Json.mapper().writer();
        ObjectWriter pretty = Json.mapper().writerWithDefaultPrettyPrinter();
        ObjectWriter escaped = Json.mapper().writer().with(JsonWriteFeature.ESCAPE_NON_ASCII);
        ObjectWriter[] writers = {compact, pretty, escaped};
        int containersDeeperThan10 = 0;
        for (int i = 0; i < 3000; i++) {
            JsonNode generated = randomValue(random, 0, random.nextInt(21), new int[] {60});
            byte[] bytes = writers[i % writers.length].writeValueAsBytes(generated);
            JsonNode expected = Json.mapper().readTree(bytes, 0, bytes.length);
            assertSameTree(expected, JsonTreeParser.parse(bytes, 0, bytes.length));
            assertSameTree(expected, JsonTreeParser.parse(new String(bytes, UTF_8)));
            if (depth(expected) > 10) {
                containersDeeperThan10++;
            }
        }
        assertTrue(containersDeeperThan10 > 100, "the corpus reaches deep nesting: " + containersDeeperThan10);
    }

    // ---- malformed documents: both reject ----

    static Stream<byte[]> invalidDocuments() {
        List<byte[]> docs = new ArrayList<>();
        for (String doc : List.of(
                "01", "-01", "00", "1.", ".5", "-", "-a", "1e", "1e+", "1E-", "+1", "1.e5", "0x10", "1.5.2", "--1", "1e5e5",
                "[01]", "[1.]", "[-]", "tru", "nul", "fals", "True", "nulll", "[truex]",
                "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":}", "{a:1}", "{'a':1}", "['a']", "{\"a\",1}", "[1 2]",
                "{\"a\":1 \"b\":2}", "[1}", "{\"a\":1]", "[", "{", "]", "}", ",", ":", "{\"a\"", "{\"a\":", "{1:2}",
                "[1]x", "1 2", "{} {}", "\"a\" \"b\"", "[] ,", "1x",
                "NaN", "Infinity", "-Infinity", "[NaN]", "[1] // c", "/* c */ 1", "# c\n1", "[1,/*c*/2]",
                "\"a\nb\"", "\"\t\"", "\"\u0000\"", "\"\u001f\"", "\"\\x\"", "\"\\'\"", "\"\\U0041\"", "\"\\u12G4\"",
                "\"\\u12\"", "\"\\u\"", "\"abc", "\"abc\\", "\"abc\\\"", "{\"a\nb\":1}",
                "{\"\\uD800\":1}", "{\"\\uDC00\":1}", "{\"\\uD83Dx\":1}", "{\"\\uD83D\\n\":1}", "{\"\\uD83D\\uD83D\":1}",
                "\u00a01", "\f1", "\u000b1", "[1,\u0000]", "[1]\u0000", "\u2028[]", "\"\u00e9\" \u00e9")) {
            docs.add(doc.getBytes(UTF_8));
        }
        docs.add(bytes(0x22, 0xC3, 0x22));                   // 2-byte sequence cut short
        docs.add(bytes(0x22, 0xE4, 0xB8, 0x22));             // 3-byte sequence cut short
        docs.add(bytes(0x22, 0xF0, 0x9F, 0x98, 0x22));       // 4-byte sequence cut short
        docs.add(bytes(0x22, 0x61, 0xE4, 0xB8));             // cut short by the end of input
        docs.add(bytes(0x22, 0x80, 0x22));                   // lone continuation byte
        docs.add(bytes(0x22, 0xFF, 0x22));                   // never valid in UTF-8
        docs.add(bytes(0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22)); // 5-byte form
        docs.add(bytes(0x22, 0xC3, 0x41, 0x22));             // bad continuation byte
        docs.add(bytes(0xC3, 0xA9));                         // a valid character where a value belongs
        docs.add(bytes(0x5B, 0x31, 0x5D, 0xE9));             // trailing invalid byte
        docs.add(("[".repeat(501) + "]".repeat(501)).getBytes(UTF_8));
        docs.add(("{\"a\":[".repeat(250) + "{}" + "]}".repeat(250)).getBytes(UTF_8));
        docs.add(("1".repeat(1001)).getBytes(UTF_8));
        docs.add(("1".repeat(501) + "." + "1".repeat(500)).getBytes(UTF_8));
        docs.add(("1." + "0".repeat(998) + "e10").getBytes(UTF_8));
        return docs.stream();
    }

    @ParameterizedTest
    @MethodSource("invalidDocuments")
    void malformedDocumentIsRejectedByBoth(byte[] doc) {
        assertBothReject(doc);
    }

    @Test
    void everyTruncationOfAnObjectOrArrayIsRejectedByBoth() {
        List<String> docs = new ArrayList<>(protocolMessages().subList(0, 2));
        docs.add(protocolMessages().get(3));
        docs.add("[1,-2.5e-3,\"a\\u00e9\\n\",true,false,null,{\"k\":[{}]},\"\u4e2d\uD83D\uDE00\",123456789012345678901]");
        int cases = 0;
        for (String doc : docs) {
            byte[] bytes = doc.getBytes(UTF_8);
            for (int len = 1; len < bytes.length; len++) {
                assertBothReject(Arrays.copyOf(bytes, len));
                cases++;
            }
        }
        assertTrue(cases > 500, "truncations tried: " + cases);
    }

    @Test
    void nestingOf500IsAcceptedAnd501IsNot() throws Exception {
        for (String doc : List.of("[".repeat(500) + "]".repeat(500),
                "{\"a\":[".repeat(250) + "]}".repeat(250),
                "[".repeat(499) + "{\"k\":7}" + "]".repeat(499))) {
            byte[] bytes = doc.getBytes(UTF_8);
            assertSameTree(Json.mapper().readTree(bytes, 0, bytes.length), JsonTreeParser.parse(bytes, 0, bytes.length));
        }
        JsonTreeParser.SyntaxError error = assertThrows(JsonTreeParser.SyntaxError.class,
                () -> JsonTreeParser.parse("[".repeat(501) + "]".repeat(501)));
        assertEquals("nesting deeper than 500 at offset 500", error.getMessage());
    }

    @Test
    void deepInputNeverOverflowsASmallStack() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable parses = () -> {
            try {
                JsonTreeParser.parse("[".repeat(500) + "]".repeat(500));
                JsonTreeParser.parse("{\"a\":[".repeat(250) + "]}".repeat(250));
                assertThrows(JsonTreeParser.SyntaxError.class, () -> JsonTreeParser.parse("[".repeat(200_000)));
                assertThrows(JsonTreeParser.SyntaxError.class, () -> JsonTreeParser.parse("{\"a\":".repeat(100_000)));
            } catch (Throwable t) {
                failure.set(t);
            }
        };
        Thread small = new Thread(null, parses, "small-stack", 64 * 1024);
        small.start();
        small.join();
        assertNull(failure.get(), () -> "on a 64 KB stack: " + failure.get());
        Thread.ofVirtual().start(parses).join();
        assertNull(failure.get(), () -> "on a virtual thread: " + failure.get());
    }

    @Test
    void numbersUpTo1000DigitsAreAcceptedCountingDigitsOnlyAsJacksonDoes() throws Exception {
        for (String doc : List.of("1".repeat(1000), "-" + "9".repeat(1000), "1".repeat(500) + "." + "1".repeat(500),
                "-1." + "0".repeat(998) + "e-1", "[" + "7".repeat(1000) + "]")) {
            byte[] bytes = doc.getBytes(UTF_8);
            assertSameTree(Json.mapper().readTree(bytes, 0, bytes.length), JsonTreeParser.parse(bytes, 0, bytes.length));
        }
        JsonTreeParser.SyntaxError error = assertThrows(JsonTreeParser.SyntaxError.class,
                () -> JsonTreeParser.parse("[" + "2".repeat(1001) + "]"));
        assertEquals("number longer than 1000 digits at offset 1", error.getMessage());
    }

    // ---- the messages say what and where, briefly ----

    @Test
    void messagesSayWhatWasWrongAndAtWhichByte() {
        assertMessage("[1,x]", "unexpected character 'x' at offset 3: expected a value");
        assertMessage("{\"a\":1", "unexpected end of input at offset 6: expected ',' or '}'");
        assertMessage("{\"a\" 1}", "unexpected character '1' at offset 5: expected ':'");
        assertMessage("{a:1}", "unexpected character 'a' at offset 1: expected a field name in double quotes");
        assertMessage("[1] 2", "unexpected content after the value at offset 4");
        assertMessage("01", "number with a leading zero at offset 0");
        assertMessage("[1.]", "unexpected character ']' at offset 3: expected a digit after '.'");
        assertMessage("tru", "unexpected end of input at offset 3: expected 'true'");
        assertMessage("\"a\\qb\"", "unexpected character 'q' at offset 3: expected one of \" \\ / b f n r t u after a backslash");
        assertMessage("\"\\u12x4\"", "unexpected character 'x' at offset 5: expected 4 hex digits after \\u");
        assertMessage("\"ab\tc\"", "control character U+0009 in a string (must be escaped) at offset 3");
        assertMessage("\"abc", "unexpected end of input at offset 4: expected '\"' to end the string");
        assertMessage("[\u00e9]", "unexpected character U+00E9 at offset 1: expected a value");
        JsonTreeParser.SyntaxError utf8 = assertThrows(JsonTreeParser.SyntaxError.class,
                () -> JsonTreeParser.parse(bytes(0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D), 0, 6));
        assertEquals("invalid UTF-8 at offset 2", utf8.getMessage());
        assertEquals(2, utf8.offset());
        // Offsets count from the start of the given slice, not of the array.
        byte[] framed = "xx[1,x]yy".getBytes(UTF_8);
        JsonTreeParser.SyntaxError sliced = assertThrows(JsonTreeParser.SyntaxError.class,
                () -> JsonTreeParser.parse(framed, 2, 5));
        assertEquals("unexpected character 'x' at offset 3: expected a value", sliced.getMessage());
    }

    @Test
    void messagesNeverQuoteTheInput() {
        String secret = "sk-" + "A".repeat(5000);
        for (String doc : List.of("{\"key\":\"" + secret + "\u0001\"}", "[\"" + secret + "\" " + secret + "]",
                "{\"" + secret + "\" 1}", "\"" + secret)) {
            JsonTreeParser.SyntaxError error = assertThrows(JsonTreeParser.SyntaxError.class, () -> JsonTreeParser.parse(doc));
            assertTrue(error.getMessage().length() < 120, error.getMessage());
            assertFalse(error.getMessage().contains("AAA"), error.getMessage());
        }
    }

    // ---- mutations: never anything but SyntaxError, and agreement with Jackson ----

    @Test
    void randomByteMutationsAgreeWithJackson() throws Exception {
        Random random = new Random(2026);
        List<byte[]> seeds = new ArrayList<>();
        for (String doc : validDocuments().toList()) {
            if (doc.length() < 2000) {
                seeds.add(doc.getBytes(UTF_8));
            }
        }
        for (int i = 0; i < 40; i++) {
            seeds.add(Json.mapper().writeValueAsBytes(randomValue(random, 0, random.nextInt(6), new int[] {12})));
        }
        byte[] interesting = "{}[],:\"\\/ \t\n0123456789-+.eEtrufalsn".getBytes(UTF_8);
        int bothAccept = 0;
        int bothReject = 0;
        int jacksonOnlyBadUtf8 = 0;
        int jacksonOnlyUtf16Guess = 0;
        for (int i = 0; i < 6000; i++) {
            byte[] doc = seeds.get(random.nextInt(seeds.size()));
            for (int m = 1 + random.nextInt(3); m > 0; m--) {
                doc = mutate(doc, random, interesting);
            }
            JsonNode theirs = jacksonOrNull(doc);
            JsonNode ours;
            JsonTreeParser.SyntaxError error = null;
            try {
                ours = JsonTreeParser.parse(doc, 0, doc.length);
            } catch (JsonTreeParser.SyntaxError e) {
                assertFalse(e.getMessage().isBlank());
                ours = null;
                error = e;
            }
            if (theirs != null && ours != null) {
                assertSameTree(theirs, ours, show(doc));
                bothAccept++;
            } else if (ours != null) {
                fail("we accept what Jackson rejects (" + jacksonError(doc) + "): " + show(doc));
            } else if (theirs != null) {
                if (assertKnownDivergence(doc, error)) {
                    jacksonOnlyUtf16Guess++;
                } else {
                    jacksonOnlyBadUtf8++;
                }
            } else {
                bothReject++;
            }
        }
        System.out.printf("JsonTreeParserTest mutations: both accept %d, both reject %d, only Jackson accepts %d"
                + " (lenient UTF-8 %d, guessed UTF-16/32 %d)%n", bothAccept, bothReject,
                jacksonOnlyBadUtf8 + jacksonOnlyUtf16Guess, jacksonOnlyBadUtf8, jacksonOnlyUtf16Guess);
        assertTrue(bothAccept > 300 && bothReject > 3000, bothAccept + " / " + bothReject);
    }

    @Test
    void randomCharMutationsOfJavaStringsAgreeWithJackson() throws Exception {
        Random random = new Random(8259);
        List<String> seeds = validDocuments().filter(d -> d.length() < 2000).toList();
        String interesting = "{}[],:\"\\/ \t\n0123456789-+.eEtrufalsn\u00e9\u4e2d\uD800\uDC00\uFEFF\u0000";
        int bothAccept = 0;
        for (int i = 0; i < 3000; i++) {
            StringBuilder doc = new StringBuilder(seeds.get(random.nextInt(seeds.size())));
            for (int m = 1 + random.nextInt(2); m > 0; m--) {
                int at = random.nextInt(doc.length() + 1);
                char c = interesting.charAt(random.nextInt(interesting.length()));
                switch (random.nextInt(3)) {
                    case 0 -> doc.insert(at, c);
                    case 1 -> { if (at < doc.length()) doc.deleteCharAt(at); }
                    default -> { if (at < doc.length()) doc.setCharAt(at, c); }
                }
            }
            String text = doc.toString();
            JsonNode theirs;
            try {
                theirs = Json.mapper().readTree(text);
            } catch (Exception e) {
                theirs = null;
            }
            JsonNode ours;
            try {
                ours = JsonTreeParser.parse(text);
            } catch (JsonTreeParser.SyntaxError e) {
                ours = null;
            }
            assertEquals(theirs != null, ours != null, () -> "accepted by only one: " + show(text.getBytes(UTF_8)));
            if (ours != null) {
                assertSameTree(theirs, ours, show(text.getBytes(UTF_8)));
                bothAccept++;
            }
        }
        assertTrue(bothAccept > 300, "accepted mutations: " + bothAccept);
    }

    // ---- where we differ from Jackson, on purpose ----

    @Test
    void invalidUtf8ThatJacksonLetsThroughIsAnErrorHere() throws Exception {
        List<byte[]> docs = List.of(
                bytes(0x22, 0xC0, 0x80, 0x22),              // overlong U+0000
                bytes(0x22, 0xE0, 0x80, 0xAF, 0x22),        // overlong '/'
                bytes(0x22, 0xF4, 0x90, 0x80, 0x80, 0x22)); // above U+10FFFF
        for (byte[] doc : docs) {
            assertNotNull(jacksonOrNull(doc), "Jackson still accepts " + show(doc) + "; if not, drop this case");
            JsonTreeParser.SyntaxError error = assertThrows(JsonTreeParser.SyntaxError.class,
                    () -> JsonTreeParser.parse(doc, 0, doc.length));
            assertEquals("invalid UTF-8 at offset 1", error.getMessage());
        }
        // Jackson also guesses UTF-16 from a zero byte at the start; the protocol is UTF-8, so that is an error here.
        byte[] utf16 = bytes(0x00, 0x5B, 0x00, 0x5D);
        assertNotNull(jacksonOrNull(utf16));
        assertThrows(JsonTreeParser.SyntaxError.class, () -> JsonTreeParser.parse(utf16, 0, utf16.length));
    }

    @Test
    void touchesNoJacksonParserNoMapperNoBigDecimal() throws Exception {
        for (String name : List.of("JsonTreeParser.class", "JsonTreeParser$SyntaxError.class")) {
            byte[] classFile;
            try (InputStream in = JsonTreeParser.class.getResourceAsStream(name)) {
                classFile = in.readAllBytes();
            }
            String constants = new String(classFile, ISO_8859_1);
            for (String forbidden : List.of("com/fasterxml/jackson/core/", "ObjectMapper", "JsonFactory", "TokenBuffer",
                    "java/math/BigDecimal")) {
                assertFalse(constants.contains(forbidden), name + " refers to " + forbidden);
            }
            String json = "cn/agentao/agent/util/Json";
            byte[] utf8Constant = concat(bytes(1, 0, json.length()), json.getBytes(UTF_8));
            assertFalse(constants.contains(new String(utf8Constant, ISO_8859_1)), name + " refers to util.Json");
        }
    }

    // ---- helpers ----

    private static JsonNode parse(String doc) throws JsonTreeParser.SyntaxError {
        byte[] bytes = doc.getBytes(UTF_8);
        return JsonTreeParser.parse(bytes, 0, bytes.length);
    }

    private static JsonNode jacksonOrNull(byte[] doc) {
        try {
            return Json.mapper().readTree(doc, 0, doc.length);
        } catch (Exception e) {
            return null;
        }
    }

    private static String jacksonError(byte[] doc) {
        try {
            Json.mapper().readTree(doc, 0, doc.length);
            return "accepted";
        } catch (Exception e) {
            return e.getMessage();
        }
    }

    private static void assertBothReject(byte[] doc) {
        assertNull(jacksonOrNull(doc), () -> "Jackson accepts " + show(doc));
        JsonTreeParser.SyntaxError error = assertThrows(JsonTreeParser.SyntaxError.class,
                () -> JsonTreeParser.parse(doc, 0, doc.length), () -> "we accept " + show(doc));
        assertTrue(error.getMessage().contains(" at offset "), error.getMessage());
        assertTrue(error.offset() >= 0 && error.offset() <= doc.length, error.getMessage());
    }

    private static void assertMessage(String doc, String message) {
        JsonTreeParser.SyntaxError error = assertThrows(JsonTreeParser.SyntaxError.class, () -> parse(doc));
        assertEquals(message, error.getMessage());
        assertThrows(JsonTreeParser.SyntaxError.class, () -> JsonTreeParser.parse(doc));
    }

    /**
     * Jackson accepted what we rejected: only for the input it decodes leniently (see the test just above).
     * True if Jackson may have read it as UTF-16/32, false if it is UTF-8 that Jackson is lenient about.
     */
    private static boolean assertKnownDivergence(byte[] doc, JsonTreeParser.SyntaxError error) {
        boolean zeroInFirstFour = false;
        for (int i = 0; i < Math.min(4, doc.length); i++) {
            zeroInFirstFour |= doc[i] == 0;
        }
        boolean invalidUtf8;
        try {
            UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(doc));
            invalidUtf8 = false;
        } catch (CharacterCodingException e) {
            invalidUtf8 = true;
        }
        assertTrue(zeroInFirstFour || (invalidUtf8 && error.getMessage().startsWith("invalid UTF-8")),
                () -> "only Jackson accepts " + show(doc) + "; we said: " + error.getMessage());
        return zeroInFirstFour;
    }

    private static void assertSameTree(JsonNode expected, JsonNode actual) {
        assertSameTree(expected, actual, "");
    }

    /** Same node classes and values everywhere, and object keys in the same order (ObjectNode.equals ignores order). */
    private static void assertSameTree(JsonNode expected, JsonNode actual, String context) {
        assertEquals(expected, actual, context);
        List<JsonNode[]> pending = new ArrayList<>();
        pending.add(new JsonNode[] {expected, actual});
        while (!pending.isEmpty()) {
            JsonNode[] pair = pending.remove(pending.size() - 1);
            assertEquals(pair[0].getClass(), pair[1].getClass(), context);
            if (pair[0].isObject()) {
                assertEquals(names(pair[0]), names(pair[1]), context);
                for (String name : names(pair[0])) {
                    pending.add(new JsonNode[] {pair[0].get(name), pair[1].get(name)});
                }
            } else if (pair[0].isArray()) {
                for (int i = 0; i < pair[0].size(); i++) {
                    pending.add(new JsonNode[] {pair[0].get(i), pair[1].get(i)});
                }
            } else {
                assertEquals(pair[0], pair[1], context);
            }
        }
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static int depth(JsonNode node) {
        int deepest = 0;
        for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
            deepest = Math.max(deepest, depth(it.next()));
        }
        return node.isContainerNode() ? deepest + 1 : 0;
    }

    private static JsonNode randomValue(Random random, int depth, int maxDepth, int[] budget) {
        budget[0]--;
        if (depth < maxDepth && budget[0] > 0 && random.nextInt(4) != 0) {
            int size = random.nextInt(5);
            if (random.nextBoolean()) {
                ArrayNode array = NODES.arrayNode();
                for (int i = 0; i < size; i++) {
                    array.add(randomValue(random, depth + 1, i == 0 ? maxDepth : depth + 2, budget));
                }
                return array;
            }
            ObjectNode object = NODES.objectNode();
            for (int i = 0; i < size; i++) {
                object.set(randomString(random), randomValue(random, depth + 1, i == 0 ? maxDepth : depth + 2, budget));
            }
            return object;
        }
        return switch (random.nextInt(9)) {
            case 0 -> NODES.textNode(randomString(random));
            case 1 -> NODES.numberNode(random.nextInt(2000) - 1000);
            case 2 -> NODES.numberNode(random.nextInt());
            case 3 -> NODES.numberNode(random.nextLong() >> random.nextInt(64));
            case 4 -> NODES.numberNode(new BigInteger(64 + random.nextInt(200), random).multiply(
                    BigInteger.valueOf(random.nextBoolean() ? 1 : -1)));
            case 5 -> NODES.numberNode(randomDouble(random));
            case 6 -> NODES.booleanNode(random.nextBoolean());
            case 7 -> NODES.nullNode();
            default -> NODES.textNode(randomString(random).repeat(1 + random.nextInt(30)));
        };
    }

    private static double randomDouble(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> {
                double d = Double.longBitsToDouble(random.nextLong());
                yield Double.isFinite(d) ? d : 0.5;
            }
            case 1 -> (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(40) - 20);
            case 2 -> random.nextInt(100) - 50.0;
            default -> random.nextBoolean() ? -0.0 : Double.MIN_VALUE;
        };
    }

    private static final String CHARS = "abcxyzABC 019_-\"\\/\b\f\n\r\t\u0000\u0001\u001f\u007f\u0080\u00e9\u00ff"
            + "\u0100\u07ff\u0800\u4e2d\u2028\uFEFF\uFFFD\uFFFF";

    private static String randomString(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(12); i > 0; i--) {
            if (random.nextInt(10) == 0) {
                s.appendCodePoint(0x10000 + random.nextInt(0x100000));
            } else {
                s.append(CHARS.charAt(random.nextInt(CHARS.length())));
            }
        }
        return s.toString();
    }

    private static byte[] mutate(byte[] doc, Random random, byte[] interesting) {
        int at = random.nextInt(doc.length + 1);
        byte b = random.nextInt(3) == 0 ? (byte) random.nextInt(256) : interesting[random.nextInt(interesting.length)];
        return switch (random.nextInt(4)) {
            case 0 -> concat(Arrays.copyOf(doc, at), new byte[] {b}, Arrays.copyOfRange(doc, at, doc.length));
            case 1 -> at < doc.length ? concat(Arrays.copyOf(doc, at), Arrays.copyOfRange(doc, at + 1, doc.length)) : doc;
            case 2 -> {
                byte[] copy = doc.clone();
                if (at < copy.length) {
                    copy[at] = b;
                }
                yield copy;
            }
            default -> {
                byte[] copy = doc.clone();
                if (at + 1 < copy.length) {
                    copy[at] = doc[at + 1];
                    copy[at + 1] = doc[at];
                }
                yield copy;
            }
        };
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] out = new byte[length];
        int n = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, n, part.length);
            n += part.length;
        }
        return out;
    }

    /** The input for a failure message: printable ASCII as is, other bytes as \xNN, at most 300 of them. */
    private static String show(byte[] doc) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(doc.length, 300); i++) {
            int b = doc[i] & 0xFF;
            s.append(b >= 0x20 && b < 0x7F ? String.valueOf((char) b) : String.format("\\x%02X", b));
        }
        return s + (doc.length > 300 ? "... (" + doc.length + " bytes)" : "");
    }
}
