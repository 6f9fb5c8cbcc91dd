package cn.agentao.agent.model;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parses {@code .env} files the way python-dotenv does, so Agentao users' files keep working:
 * {@code # comments}, blank lines, an optional {@code export } prefix, unquoted values (a {@code " #"} starts a
 * trailing comment), {@code 'single'} quotes (literal) and {@code "double"} quotes (escapes {@code \n \t \r \" \\}),
 * both of which may span lines, and {@code ${VAR}} / {@code ${VAR:-default}} references in unquoted and
 * double-quoted values (resolved against earlier entries of the same file, then the given outer lookup).
 * Lines that are not assignments are skipped.
 */
public final class DotEnv {
    private static final Logger LOG = LoggerFactory.getLogger(DotEnv.class);

    private DotEnv() {}

    /** Reads {@code file}; a missing or unreadable file yields an empty map. */
    public static Map<String, String> read(Path file, Function<String, String> outerLookup) {
        if (file == null || !Files.isRegularFile(file)) {
            return Map.of();
        }
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), outerLookup);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot read {}: {}", file, e.toString());
            return Map.of();
        }
    }

    public static Map<String, String> parse(String text) {
        return parse(text, name -> null);
    }

    public static Map<String, String> parse(String text, Function<String, String> outerLookup) {
        Map<String, String> values = new LinkedHashMap<>();
        new Parser(text.startsWith("\uFEFF") ? text.substring(1) : text, values, outerLookup).parseAll();
        return Collections.unmodifiableMap(values);
    }

    private static final class Parser {
        private final String text;
        private final Map<String, String> values;
        private final Function<String, String> outerLookup;
        private int pos;

        Parser(String text, Map<String, String> values, Function<String, String> outerLookup) {
            this.text = text;
            this.values = values;
            this.outerLookup = outerLookup;
        }

        void parseAll() {
            while (pos < text.length()) {
                parseLine();
            }
        }

        private void parseLine() {
            skipBlanks();
            if (startsWith("export ") || startsWith("export\t")) {
                pos += "export".length();
                skipBlanks();
            }
            int keyStart = pos;
            while (pos < text.length() && isKeyChar(text.charAt(pos))) {
                pos++;
            }
            String key = text.substring(keyStart, pos);
            skipBlanks();
            if (key.isEmpty() || pos >= text.length() || text.charAt(pos) != '=') {
                skipRestOfLine();
                return;
            }
            pos++; // '='
            skipBlanks();
            String value;
            if (pos < text.length() && text.charAt(pos) == '\'') {
                value = quoted('\'');
            } else if (pos < text.length() && text.charAt(pos) == '"') {
                value = expand(quoted('"'));
            } else {
                value = expand(unquoted());
            }
            skipRestOfLine();
            values.put(key, value);
        }

        private String unquoted() {
            int start = pos;
            int end = text.indexOf('\n', pos);
            if (end < 0) {
                end = text.length();
            }
            String raw = text.substring(start, end);
            int comment = raw.indexOf(" #");
            int tabComment = raw.indexOf("\t#");
            if (tabComment >= 0 && (comment < 0 || tabComment < comment)) {
                comment = tabComment;
            }
            if (comment >= 0) {
                raw = raw.substring(0, comment);
            }
            pos = end;
            return raw.strip();
        }

        /** Reads a quoted value starting at the opening quote; an unterminated quote takes the rest of the line. */
        private String quoted(char quote) {
            int open = pos;
            pos++;
            StringBuilder out = new StringBuilder();
            while (pos < text.length()) {
                char c = text.charAt(pos++);
                if (c == quote) {
                    return out.toString();
                }
                if (c == '\\' && pos < text.length()) {
                    char next = text.charAt(pos);
                    if (quote == '"') {
                        switch (next) {
                            case 'n' -> out.append('\n');
                            case 't' -> out.append('\t');
                            case 'r' -> out.append('\r');
                            case '"', '\\' -> out.append(next);
                            default -> out.append('\\').append(next);
                        }
                        pos++;
                        continue;
                    }
                    if (next == '\'' || next == '\\') {
                        out.append(next);
                        pos++;
                        continue;
                    }
                }
                out.append(c);
            }
            // No closing quote: treat the opening line as an unquoted value instead of swallowing the file.
            pos = open;
            return unquoted();
        }

        private String expand(String value) {
            if (!value.contains("${")) {
                return value;
            }
            StringBuilder out = new StringBuilder();
            int i = 0;
            while (i < value.length()) {
                int start = value.indexOf("${", i);
                int end = start < 0 ? -1 : value.indexOf('}', start + 2);
                if (start < 0 || end < 0) {
                    out.append(value, i, value.length());
                    break;
                }
                out.append(value, i, start);
                String reference = value.substring(start + 2, end);
                String name = reference;
                String fallback = "";
                int dash = reference.indexOf(":-");
                if (dash >= 0) {
                    name = reference.substring(0, dash);
                    fallback = reference.substring(dash + 2);
                }
                String resolved = values.containsKey(name) ? values.get(name) : outerLookup.apply(name);
                out.append(resolved == null || resolved.isEmpty() ? fallback : resolved);
                i = end + 1;
            }
            return out.toString();
        }

        private boolean startsWith(String prefix) {
            return text.startsWith(prefix, pos);
        }

        private void skipBlanks() {
            while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t' || text.charAt(pos) == '\r')) {
                pos++;
            }
        }

        private void skipRestOfLine() {
            int end = text.indexOf('\n', pos);
            pos = end < 0 ? text.length() : end + 1;
        }

        private static boolean isKeyChar(char c) {
            return Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '-';
        }
    }
}
