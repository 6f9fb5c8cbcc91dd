package cn.agentao.agent.util;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Strict JSON text (RFC 8259, UTF-8) to the Jackson tree {@code Json.mapper().readTree} builds: the same node
 * classes (int, long and big integers, doubles), member order, a duplicate member keeping its place and taking the
 * last value; exactly one value per input; nesting bounded by {@link Json#MAX_NESTING_DEPTH}; numbers of at most
 * 1,000 characters ({@link Json#READ_CONSTRAINTS}).
 *
 * <p>Why not Jackson's parser: every Jackson parser shares a base class whose initialisation sets off JDK 25's
 * {@code BigDecimal.<clinit>} (5^(2^16): about 12 ms of CPU and 2 MB of garbage), and the mapper around it costs
 * about 3 MB more. An editor's start parses only protocol lines and tool schemas, so it uses this instead and never
 * builds either. Invalid UTF-8 is refused here where Jackson lets some through (overlong forms, encoded surrogates).
 */
public final class JsonTreeParser {
    private static final int MAX_DEPTH = Json.MAX_NESTING_DEPTH;
    private static final int MAX_NUMBER_LENGTH = 1000;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** What is wrong with the text, and at which byte of it. */
    public static final class SyntaxError extends IOException {
        SyntaxError(String message) {
            super(message);
        }
    }

    private final byte[] b;
    private final int start;
    private final int end;
    private int i;
    private char[] chars = new char[64]; // strings with escapes or non-ASCII text are decoded here

    private JsonTreeParser(byte[] b, int start, int end) {
        this.b = b;
        this.start = start;
        this.end = end;
        this.i = start;
    }

    /** Parses {@code utf8[off, off+len)}; empty or blank input is {@link MissingNode}. */
    public static JsonNode parse(byte[] utf8, int off, int len) throws SyntaxError {
        Objects.checkFromIndexSize(off, len, utf8.length);
        return new JsonTreeParser(utf8, off, off + len).document();
    }

    public static JsonNode parse(String text) throws SyntaxError {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        return parse(utf8, 0, utf8.length);
    }

    private JsonNode document() throws SyntaxError {
        if (end - i >= 3 && b[i] == (byte) 0xEF && b[i + 1] == (byte) 0xBB && b[i + 2] == (byte) 0xBF) i += 3; // a BOM
        skipWhitespace();
        if (i == end) return MissingNode.getInstance();
        JsonNode value = value();
        skipWhitespace();
        if (i != end) throw error("unexpected content after the value");
        return value;
    }

    /** One value, containers walked with an explicit stack (deep input cannot overflow the thread's stack). */
    private JsonNode value() throws SyntaxError {
        ContainerNode<?>[] open = new ContainerNode<?>[8];
        String[] names = new String[8]; // the member name awaiting its value, per open object
        int depth = 0;
        while (true) {
            JsonNode v;
            skipWhitespace();
            if (i == end) throw error("unexpected end of input: expected a value");
            byte c = b[i];
            if (c == '{' || c == '[') {
                i++;
                if (depth == MAX_DEPTH) throw error("nesting deeper than " + MAX_DEPTH);
                if (depth == open.length) {
                    open = Arrays.copyOf(open, depth * 2);
                    names = Arrays.copyOf(names, depth * 2);
                }
                boolean object = c == '{';
                ContainerNode<?> container = object ? NODES.objectNode() : NODES.arrayNode();
                open[depth++] = container;
                skipWhitespace();
                if (i < end && b[i] == (object ? '}' : ']')) {
                    i++;
                    depth--;
                    v = container;
                } else {
                    if (object) names[depth - 1] = memberName();
                    continue;
                }
            } else {
                v = scalar(c);
            }
            // v is complete: hand it to its container, then read what follows it there
            while (true) {
                if (depth == 0) return v;
                ContainerNode<?> parent = open[depth - 1];
                boolean object = parent instanceof ObjectNode;
                if (object) ((ObjectNode) parent).set(names[depth - 1], v);
                else ((ArrayNode) parent).add(v);
                skipWhitespace();
                if (i == end) throw error("unexpected end of input: expected ',' or '" + (object ? '}' : ']') + "'");
                byte next = b[i++];
                if (next == ',') {
                    if (object) names[depth - 1] = memberName();
                    break;
                }
                if (next != (object ? '}' : ']')) {
                    i--;
                    throw error("unexpected " + describe() + ": expected ',' or '" + (object ? '}' : ']') + "'");
                }
                v = parent;
                depth--;
            }
        }
    }

    /** {@code "name" :} of an object member. */
    private String memberName() throws SyntaxError {
        skipWhitespace();
        if (i == end) throw error("unexpected end of input: expected a member name");
        if (b[i] != '"') throw error("unexpected " + describe() + ": expected a member name in double quotes");
        i++;
        int at = i;
        String name = string();
        if (!pairedSurrogates(name)) {
            i = at;
            throw error("a broken surrogate pair in a member name"); // as Jackson (which lets values have them)
        }
        skipWhitespace();
        if (i == end) throw error("unexpected end of input: expected ':'");
        if (b[i] != ':') throw error("unexpected " + describe() + ": expected ':'");
        i++;
        return name;
    }

    private static boolean pairedSurrogates(String s) {
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (Character.isHighSurrogate(c) && k + 1 < s.length() && Character.isLowSurrogate(s.charAt(k + 1))) k++;
            else if (Character.isSurrogate(c)) return false;
        }
        return true;
    }

    private JsonNode scalar(byte c) throws SyntaxError {
        switch (c) {
            case '"' -> {
                i++;
                return TextNode.valueOf(string());
            }
            case 't' -> {
                literal("true");
                return BooleanNode.TRUE;
            }
            case 'f' -> {
                literal("false");
                return BooleanNode.FALSE;
            }
            case 'n' -> {
                literal("null");
                return NullNode.instance;
            }
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw error("unexpected " + describe() + ": expected a value");
            }
        }
    }

    private void literal(String word) throws SyntaxError {
        for (int k = 0; k < word.length(); k++, i++) {
            if (i == end) throw error("unexpected end of input in '" + word + "'");
            if (b[i] != word.charAt(k)) throw error("unexpected " + describe() + " in '" + word + "'");
        }
    }

    private JsonNode number() throws SyntaxError {
        int at = i;
        boolean negative = b[i] == '-';
        if (negative) i++;
        int digitsFrom = i;
        if (i == end || !digit(b[i])) throw error("a number needs digits after '-'");
        if (b[i] == '0') {
            i++;
            if (i < end && digit(b[i])) throw error("a number cannot start with 0 (leading zeros are not JSON)");
        } else {
            while (i < end && digit(b[i])) i++;
        }
        int intDigits = i - digitsFrom;
        boolean integral = true;
        if (i < end && b[i] == '.') {
            integral = false;
            i++;
            if (i == end || !digit(b[i])) throw error("a number needs digits after '.'");
            while (i < end && digit(b[i])) i++;
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            integral = false;
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) i++;
            if (i == end || !digit(b[i])) throw error("a number needs digits in its exponent");
            while (i < end && digit(b[i])) i++;
        }
        if (i - at > MAX_NUMBER_LENGTH) {
            i = at;
            throw error("number longer than " + MAX_NUMBER_LENGTH + " characters");
        }
        if (!integral) return DoubleNode.valueOf(Double.parseDouble(new String(b, at, i - at, StandardCharsets.ISO_8859_1)));
        if (intDigits <= 18) {
            long v = 0;
            for (int k = digitsFrom; k < i; k++) v = v * 10 + (b[k] - '0');
            if (negative) v = -v;
            return v == (int) v ? IntNode.valueOf((int) v) : LongNode.valueOf(v);
        }
        BigInteger big = new BigInteger(new String(b, at, i - at, StandardCharsets.ISO_8859_1));
        return big.bitLength() < 64 ? LongNode.valueOf(big.longValue()) : BigIntegerNode.valueOf(big);
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** The string whose opening quote was just read, up to and past its closing quote. */
    private String string() throws SyntaxError {
        int from = i;
        while (i < end) { // the common case: printable ASCII without escapes
            byte c = b[i];
            if (c == '"') {
                String s = new String(b, from, i - from, StandardCharsets.ISO_8859_1);
                i++;
                return s;
            }
            if (c == '\\' || c < 0x20) break; // non-ASCII bytes are negative
            i++;
        }
        int n = 0;
        for (int k = from; k < i; k++) n = put(n, (char) b[k]);
        while (true) {
            if (i == end) throw error("unexpected end of input in a string");
            int c = b[i] & 0xFF;
            if (c == '"') {
                i++;
                return new String(chars, 0, n);
            }
            if (c == '\\') {
                n = escape(n);
            } else if (c < 0x20) {
                throw error("unescaped control character (code " + c + ") in a string");
            } else if (c < 0x80) {
                n = put(n, (char) c);
                i++;
            } else {
                n = utf8(n, c);
            }
        }
    }

    private int escape(int n) throws SyntaxError {
        if (i + 1 >= end) throw error("unexpected end of input in an escape");
        byte e = b[i + 1];
        char c;
        switch (e) {
            case '"' -> c = '"';
            case '\\' -> c = '\\';
            case '/' -> c = '/';
            case 'b' -> c = '\b';
            case 'f' -> c = '\f';
            case 'n' -> c = '\n';
            case 'r' -> c = '\r';
            case 't' -> c = '\t';
            case 'u' -> {
                if (i + 6 > end) throw error("unexpected end of input in a \\u escape");
                int v = 0;
                for (int k = i + 2; k < i + 6; k++) {
                    int h = Character.digit(b[k], 16);
                    if (h < 0 || b[k] < 0) throw error("a \\u escape needs four hexadecimal digits");
                    v = (v << 4) | h;
                }
                i += 6;
                return put(n, (char) v);
            }
            default -> throw error("unknown escape '\\" + (e >= 0x20 && e < 0x7F ? String.valueOf((char) e) : "?") + "' in a string");
        }
        i += 2;
        return put(n, c);
    }

    /** One multi-byte UTF-8 sequence (lead byte {@code c}); overlong forms, surrogates and beyond U+10FFFF are refused. */
    private int utf8(int n, int c) throws SyntaxError {
        int count;
        int cp;
        int min;
        if (c >= 0xC2 && c <= 0xDF) {
            count = 1;
            cp = c & 0x1F;
            min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            count = 2;
            cp = c & 0x0F;
            min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            count = 3;
            cp = c & 0x07;
            min = 0x10000;
        } else {
            throw error("invalid UTF-8 (byte 0x" + Integer.toHexString(c) + ")");
        }
        if (i + count >= end) throw error("invalid UTF-8 (a sequence cut short)");
        for (int k = 1; k <= count; k++) {
            int d = b[i + k] & 0xFF;
            if ((d & 0xC0) != 0x80) throw error("invalid UTF-8 (byte 0x" + Integer.toHexString(d) + " in a sequence)");
            cp = (cp << 6) | (d & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            throw error("invalid UTF-8 (an overlong form, a surrogate or beyond U+10FFFF)");
        }
        i += count + 1;
        if (cp < 0x10000) return put(n, (char) cp);
        n = put(n, Character.highSurrogate(cp));
        return put(n, Character.lowSurrogate(cp));
    }

    private int put(int n, char c) {
        if (n == chars.length) chars = Arrays.copyOf(chars, n * 2);
        chars[n] = c;
        return n + 1;
    }

    private void skipWhitespace() {
        while (i < end) {
            byte c = b[i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
            i++;
        }
    }

    /** The character at {@code i}, for a message. */
    private String describe() {
        int c = b[i] & 0xFF;
        return c >= 0x20 && c < 0x7F ? "character '" + (char) c + "'" : "byte 0x" + Integer.toHexString(c);
    }

    private SyntaxError error(String what) {
        return new SyntaxError(what + " at offset " + (i - start));
    }
}
