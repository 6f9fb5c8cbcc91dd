package cn.agentao.agent.util;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Objects;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Strict JSON text (RFC 8259) to the Jackson tree {@code Json.mapper().readTree} would build, without any Jackson
 * parser: the first Jackson parser of a process initialises {@code BigDecimal} (2 MB of garbage and CPU on JDK 25)
 * before the agent has answered anything, so the small parses of start-up come here.
 *
 * <p>Same tree means: the same node classes (an integer is an {@code IntNode}, {@code LongNode} or
 * {@code BigIntegerNode} by its value, anything with a fraction or exponent a {@code DoubleNode}), keys in insertion
 * order, a repeated key keeps its first place and its last value, empty or whitespace-only input is a
 * {@link MissingNode}. Same limits as {@code Json.READ_CONSTRAINTS}: nesting deeper than 500 and numbers of more than
 * 1000 digits are errors; so is an unpaired surrogate escape (backslash-u) in a field name (not in a value) when parsing
 * bytes, as in Jackson 2.22. Nesting is followed on an explicit stack, never by recursion. Where it differs from
 * Jackson: invalid UTF-8 that Jackson lets through (overlong forms, code points above U+10FFFF) is an error here, and
 * the input is UTF-8 only (Jackson also guesses UTF-16/32 from zero bytes at the start).
 * Error offsets count bytes from the start of the given input (for a {@code String}, of its UTF-8 form).
 */
public final class JsonTreeParser {
    /** As {@code Json.MAX_NESTING_DEPTH}: arrays and objects open at once. */
    private static final int MAX_NESTING_DEPTH = 500;
    /** As {@code Json.READ_CONSTRAINTS.maxNumberLength}; Jackson counts the digits only (no sign, point, 'e'). */
    private static final int MAX_NUMBER_DIGITS = 1000;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    /** A malformed JSON text: what was wrong and at which byte offset. */
    public static final class SyntaxError extends IOException {
        private static final long serialVersionUID = 1L;
        private final int offset;

        private SyntaxError(String message, int offset) {
            super(message);
            this.offset = offset;
        }

        /** Bytes from the start of the input to where the problem was found. */
        public int offset() {
            return offset;
        }
    }

    private final byte[] in;
    private final int start;
    private final int end;
    /** Parsing a Java string: its lone surrogates arrive as 3-byte sequences and are kept, as Jackson keeps them. */
    private final boolean fromText;
    private int pos;
    private char[] chars;

    private JsonTreeParser(byte[] in, int start, int end, boolean fromText) {
        this.in = in;
        this.start = start;
        this.end = end;
        this.fromText = fromText;
        this.pos = start;
    }

    /** The tree of the JSON text in {@code utf8[off, off+len)}; {@link MissingNode} if it holds only whitespace. */
    public static JsonNode parse(byte[] utf8, int off, int len) throws SyntaxError {
        Objects.checkFromIndexSize(off, len, utf8.length);
        return new JsonTreeParser(utf8, off, off + len, false).document();
    }

    /** The tree of the JSON text; {@link MissingNode} if it holds only whitespace. */
    public static JsonNode parse(String text) throws SyntaxError {
        byte[] utf8 = utf8(text);
        return new JsonTreeParser(utf8, 0, utf8.length, true).document();
    }

    private JsonNode document() throws SyntaxError {
        // Jackson skips a UTF-8 byte order mark when it sees at least 4 bytes (RFC 8259 allows ignoring it).
        if (!fromText && end - pos >= 4
                && in[pos] == (byte) 0xEF && in[pos + 1] == (byte) 0xBB && in[pos + 2] == (byte) 0xBF) {
            pos += 3;
        }
        skipWhitespace();
        if (pos == end) {
            return MissingNode.getInstance();
        }
        JsonNode root = value();
        skipWhitespace();
        if (pos != end) {
            throw error("unexpected content after the value", pos);
        }
        return root;
    }

    /** One value with everything nested in it; open containers wait on {@code open}, their next key in {@code keys}. */
    private JsonNode value() throws SyntaxError {
        JsonNode[] open = new JsonNode[16];
        String[] keys = new String[16];
        int depth = 0;
        while (true) {
            JsonNode value;
            skipWhitespace();
            int c = pos < end ? in[pos] : -1;
            if (c == '{' || c == '[') {
                if (depth == MAX_NESTING_DEPTH) {
                    throw error("nesting deeper than " + MAX_NESTING_DEPTH, pos);
                }
                pos++;
                skipWhitespace();
                if (depth == open.length) {
                    open = Arrays.copyOf(open, depth * 2);
                    keys = Arrays.copyOf(keys, depth * 2);
                }
                if (c == '{') {
                    ObjectNode object = NODES.objectNode();
                    if (pos < end && in[pos] == '}') {
                        pos++;
                        value = object;
                    } else {
                        open[depth] = object;
                        keys[depth++] = key();
                        continue;
                    }
                } else {
                    ArrayNode array = NODES.arrayNode();
                    if (pos < end && in[pos] == ']') {
                        pos++;
                        value = array;
                    } else {
                        open[depth++] = array;
                        continue;
                    }
                }
            } else if (c == '"') {
                pos++;
                value = NODES.textNode(string(false));
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                value = number();
            } else if (c == 't') {
                value = literal(TRUE, NODES.booleanNode(true));
            } else if (c == 'f') {
                value = literal(FALSE, NODES.booleanNode(false));
            } else if (c == 'n') {
                value = literal(NULL, NODES.nullNode());
            } else {
                throw unexpected("a value");
            }
            // The value is complete: put it into its container; close every container that ends here.
            while (true) {
                if (depth == 0) {
                    return value;
                }
                JsonNode container = open[depth - 1];
                skipWhitespace();
                int next = pos < end ? in[pos] : -1;
                if (container instanceof ObjectNode object) {
                    object.replace(keys[depth - 1], value);
                    if (next == ',') {
                        pos++;
                        skipWhitespace();
                        keys[depth - 1] = key();
                        break;
                    }
                    if (next != '}') {
                        throw unexpected("',' or '}'");
                    }
                } else {
                    ((ArrayNode) container).add(value);
                    if (next == ',') {
                        pos++;
                        break;
                    }
                    if (next != ']') {
                        throw unexpected("',' or ']'");
                    }
                }
                pos++;
                value = container;
                open[--depth] = null;
            }
        }
    }

    /** A field name and its colon; {@code pos} is at the opening quote (whitespace skipped). */
    private String key() throws SyntaxError {
        if (pos >= end || in[pos] != '"') {
            throw unexpected("a field name in double quotes");
        }
        pos++;
        String key = string(true);
        skipWhitespace();
        if (pos >= end || in[pos] != ':') {
            throw unexpected("':'");
        }
        pos++;
        return key;
    }

    /** The rest of a string after its opening quote: ASCII without escapes is copied straight from the bytes. */
    private String string(boolean name) throws SyntaxError {
        final byte[] in = this.in;
        final int from = pos;
        int p = from;
        while (p < end) {
            int b = in[p];
            if (b == '"') {
                pos = p + 1;
                return new String(in, from, p - from, ISO_8859_1);
            }
            if (b < 0x20 || b == '\\') { // non-ASCII bytes are negative
                break;
            }
            p++;
        }
        return decodedString(from, p, name);
    }

    /** A string with escapes or non-ASCII characters: ASCII {@code [from, p)} is plain, decoding starts at p. */
    private String decodedString(int from, int p, boolean name) throws SyntaxError {
        final byte[] in = this.in;
        char[] out = chars;
        int n = p - from;
        if (out == null || out.length < n + 16) {
            out = new char[Math.max(64, n * 2 + 16)];
        }
        for (int i = 0; i < n; i++) {
            out[i] = (char) in[from + i];
        }
        while (true) {
            if (p >= end) {
                chars = out;
                throw error("unexpected end of input", p, "'\"' to end the string");
            }
            if (n + 2 > out.length) {
                out = Arrays.copyOf(out, out.length * 2);
            }
            int b = in[p] & 0xFF;
            if (b == '"') {
                pos = p + 1;
                chars = out;
                return new String(out, 0, n);
            }
            if (b == '\\') {
                int at = p;
                char c = escape(p);
                p += in[p + 1] == 'u' ? 6 : 2;
                if (name && !fromText && Character.isSurrogate(c)) {
                    // Jackson's byte parser wants escaped surrogates in field names paired (in values it keeps them).
                    char low = Character.isHighSurrogate(c) && p < end && in[p] == '\\' ? escape(p) : 0;
                    if (!Character.isLowSurrogate(low)) {
                        throw error("unpaired surrogate escape in a field name", at);
                    }
                    out[n++] = c;
                    c = low;
                    p += 6;
                }
                out[n++] = c;
            } else if (b < 0x20) {
                throw error(String.format("control character U+%04X in a string (must be escaped)", b), p);
            } else if (b < 0x80) {
                out[n++] = (char) b;
                p++;
            } else {
                int cp = codePoint(p);
                p += utf8Length(b);
                if (cp >= 0x10000) {
                    out[n++] = Character.highSurrogate(cp);
                    out[n++] = Character.lowSurrogate(cp);
                } else {
                    out[n++] = (char) cp;
                }
            }
        }
    }

    /** The character of the escape at p (a backslash); backslash-u escapes give each UTF-16 unit as it is. */
    private char escape(int p) throws SyntaxError {
        if (p + 1 >= end) {
            throw error("unexpected end of input", end, "an escape");
        }
        switch (in[p + 1]) {
            case '"': return '"';
            case '\\': return '\\';
            case '/': return '/';
            case 'b': return '\b';
            case 'f': return '\f';
            case 'n': return '\n';
            case 'r': return '\r';
            case 't': return '\t';
            case 'u': break;
            default:
                pos = p + 1;
                throw unexpected("one of \" \\ / b f n r t u after a backslash");
        }
        int value = 0;
        for (int i = p + 2; i < p + 6; i++) {
            int digit = i < end ? hexDigit(in[i]) : -1;
            if (digit < 0) {
                pos = i;
                throw unexpected("4 hex digits after \\u");
            }
            value = value << 4 | digit;
        }
        return (char) value;
    }

    private static int hexDigit(int b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        int lower = b | 0x20;
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }

    private static int utf8Length(int lead) {
        return lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    }

    /** The code point of the multi-byte UTF-8 sequence at p, checked strictly (Unicode table 3-7). */
    private int codePoint(int p) throws SyntaxError {
        int b = in[p] & 0xFF;
        int length;
        int cp;
        int min;
        if (b >= 0xC2 && b <= 0xDF) {
            length = 2;
            cp = b & 0x1F;
            min = 0x80;
        } else if (b >= 0xE0 && b <= 0xEF) {
            length = 3;
            cp = b & 0x0F;
            min = 0x800;
        } else if (b >= 0xF0 && b <= 0xF4) {
            length = 4;
            cp = b & 0x07;
            min = 0x10000;
        } else {
            throw error("invalid UTF-8", p);
        }
        if (end - p < length) {
            throw error("invalid UTF-8", p);
        }
        for (int i = 1; i < length; i++) {
            int c = in[p + i];
            if ((c & 0xC0) != 0x80) {
                throw error("invalid UTF-8", p);
            }
            cp = cp << 6 | (c & 0x3F);
        }
        if (cp < min || cp > Character.MAX_CODE_POINT || (cp >= 0xD800 && cp <= 0xDFFF && !fromText)) {
            throw error("invalid UTF-8", p);
        }
        return cp;
    }

    private JsonNode literal(byte[] word, JsonNode node) throws SyntaxError {
        for (byte b : word) {
            if (pos >= end || in[pos] != b) {
                throw unexpected("'" + new String(word, ISO_8859_1) + "'");
            }
            pos++;
        }
        return node;
    }

    /** A number: IntNode, LongNode or BigIntegerNode by value without fraction or exponent, else a DoubleNode. */
    private JsonNode number() throws SyntaxError {
        final byte[] in = this.in;
        final int from = pos;
        boolean negative = in[pos] == '-';
        if (negative) {
            pos++;
        }
        int intFrom = pos;
        if (pos >= end || in[pos] < '0' || in[pos] > '9') {
            throw unexpected("a digit");
        }
        if (in[pos] == '0' && pos + 1 < end && in[pos + 1] >= '0' && in[pos + 1] <= '9') {
            throw error("number with a leading zero", from);
        }
        int digits = skipDigits();
        boolean floating = false;
        if (pos < end && in[pos] == '.') {
            pos++;
            int fraction = skipDigits();
            if (fraction == 0) {
                throw unexpected("a digit after '.'");
            }
            digits += fraction;
            floating = true;
        }
        if (pos < end && (in[pos] == 'e' || in[pos] == 'E')) {
            pos++;
            if (pos < end && (in[pos] == '+' || in[pos] == '-')) {
                pos++;
            }
            int exponent = skipDigits();
            if (exponent == 0) {
                throw unexpected("a digit in the exponent");
            }
            digits += exponent;
            floating = true;
        }
        if (digits > MAX_NUMBER_DIGITS) {
            throw error("number longer than " + MAX_NUMBER_DIGITS + " digits", from);
        }
        if (floating) {
            return NODES.numberNode(Double.parseDouble(new String(in, from, pos - from, ISO_8859_1)));
        }
        if (digits <= 18) { // below 10^18: fits a long as it is
            long value = 0;
            for (int i = intFrom; i < pos; i++) {
                value = value * 10 + (in[i] - '0');
            }
            if (negative) {
                value = -value;
            }
            return value == (int) value ? NODES.numberNode((int) value) : NODES.numberNode(value);
        }
        if (digits == 19) {
            long head = 0;
            for (int i = intFrom; i < pos - 1; i++) {
                head = head * 10 + (in[i] - '0');
            }
            int last = in[pos - 1] - '0';
            long limit = Long.MAX_VALUE / 10;
            if (head < limit || (head == limit && last <= (negative ? 8 : 7))) {
                return NODES.numberNode(negative ? -head * 10 - last : head * 10 + last);
            }
        }
        return NODES.numberNode(new BigInteger(new String(in, from, pos - from, ISO_8859_1)));
    }

    private int skipDigits() {
        int p = pos;
        while (p < end && in[p] >= '0' && in[p] <= '9') {
            p++;
        }
        int count = p - pos;
        pos = p;
        return count;
    }

    private void skipWhitespace() {
        int p = pos;
        while (p < end) {
            byte b = in[p];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                break;
            }
            p++;
        }
        pos = p;
    }

    /** What is at {@code pos} (the end, a character or bad UTF-8) where {@code expected} should be. */
    private SyntaxError unexpected(String expected) throws SyntaxError {
        if (pos >= end) {
            return error("unexpected end of input", end, expected);
        }
        int b = in[pos] & 0xFF;
        int cp = b < 0x80 ? b : codePoint(pos);
        String shown = cp >= 0x21 && cp < 0x7F ? "'" + (char) cp + "'" : String.format("U+%04X", cp);
        return error("unexpected character " + shown, pos, expected);
    }

    private SyntaxError error(String what, int at) {
        return new SyntaxError(what + " at offset " + (at - start), at - start);
    }

    private SyntaxError error(String what, int at, String expected) {
        return new SyntaxError(what + " at offset " + (at - start) + ": expected " + expected, at - start);
    }

    /** The UTF-8 form of a Java string; a lone surrogate gets the 3-byte form of its code unit (not '?'). */
    private static byte[] utf8(String text) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                } else {
                    return utf8KeepingLoneSurrogates(text);
                }
            }
        }
        return text.getBytes(UTF_8);
    }

    private static byte[] utf8KeepingLoneSurrogates(String text) {
        byte[] out = new byte[text.length() * 3];
        int n = 0;
        for (int i = 0; i < text.length(); i++) {
            int c = text.charAt(i);
            if (Character.isHighSurrogate((char) c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                c = Character.toCodePoint((char) c, text.charAt(++i));
            }
            if (c < 0x80) {
                out[n++] = (byte) c;
            } else if (c < 0x800) {
                out[n++] = (byte) (0xC0 | c >> 6);
                out[n++] = (byte) (0x80 | c & 0x3F);
            } else if (c < 0x10000) {
                out[n++] = (byte) (0xE0 | c >> 12);
                out[n++] = (byte) (0x80 | c >> 6 & 0x3F);
                out[n++] = (byte) (0x80 | c & 0x3F);
            } else {
                out[n++] = (byte) (0xF0 | c >> 18);
                out[n++] = (byte) (0x80 | c >> 12 & 0x3F);
                out[n++] = (byte) (0x80 | c >> 6 & 0x3F);
                out[n++] = (byte) (0x80 | c & 0x3F);
            }
        }
        return Arrays.copyOf(out, n);
    }
}
