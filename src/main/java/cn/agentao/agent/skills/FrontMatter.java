package cn.agentao.agent.skills;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The small YAML subset a {@code SKILL.md}'s (and an agent definition's) front matter needs: {@code key: value} lines (plain, single- or
 * double-quoted), block scalars ({@code key: |} or {@code key: >} with indented lines), lists as {@code [a, b]} or
 * as indented {@code - item} lines. Comments and unknown keys are ignored; anything else is an error with its line.
 */
public final class FrontMatter {
    /** The parsed document: the keys' values (a String or a List of Strings) and the body after the closing line. */
    public record Parsed(Map<String, Object> values, String body) {}

    public static final class Invalid extends Exception {
        public Invalid(String message) { super(message); }
    }

    private FrontMatter() {}

    public static Parsed parse(String text) throws Invalid {
        String t = text.startsWith("\uFEFF") ? text.substring(1) : text;
        List<String> lines = t.lines().toList();
        if (lines.isEmpty() || !lines.getFirst().strip().equals("---")) {
            throw new Invalid("it does not start with a front matter block (a line '---', name: and description:, then '---')");
        }
        int end = -1;
        for (int i = 1; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("---")) { end = i; break; }
        }
        if (end < 0) throw new Invalid("its front matter has no closing '---' line");
        Map<String, Object> values = new LinkedHashMap<>();
        int i = 1;
        while (i < end) {
            String line = lines.get(i);
            if (line.isBlank() || line.stripLeading().startsWith("#")) { i++; continue; }
            if (Character.isWhitespace(line.charAt(0))) throw new Invalid("line " + (i + 1) + " of the front matter is indented where a key was expected");
            int colon = line.indexOf(':');
            if (colon <= 0) throw new Invalid("line " + (i + 1) + " of the front matter is not 'key: value'");
            String key = line.substring(0, colon).strip();
            String rest = line.substring(colon + 1).strip();
            i++;
            if (rest.equals("|") || rest.equals(">") || rest.equals("|-") || rest.equals(">-")) {
                List<String> block = new ArrayList<>();
                while (i < end && (lines.get(i).isBlank() || Character.isWhitespace(lines.get(i).charAt(0)))) block.add(lines.get(i++).strip());
                values.put(key, String.join(rest.startsWith("|") ? "\n" : " ", block).strip());
            } else if (rest.isEmpty()) {
                List<String> items = new ArrayList<>();
                StringBuilder folded = new StringBuilder();
                while (i < end && (lines.get(i).isBlank() || Character.isWhitespace(lines.get(i).charAt(0)))) {
                    String s = lines.get(i++).strip();
                    if (s.isEmpty()) continue;
                    if (s.startsWith("- ") || s.equals("-")) items.add(scalar(s.substring(1).strip(), i));
                    else folded.append(folded.isEmpty() ? "" : " ").append(s);
                }
                if (!items.isEmpty() && !folded.isEmpty()) throw new Invalid("key '" + key + "' mixes a list and text");
                values.put(key, items.isEmpty() ? folded.toString() : List.copyOf(items));
            } else if (rest.startsWith("[")) {
                if (!rest.endsWith("]")) throw new Invalid("line " + i + " of the front matter opens a list '[' it does not close on that line");
                List<String> items = new ArrayList<>();
                for (String s : rest.substring(1, rest.length() - 1).split(",")) if (!s.isBlank()) items.add(scalar(s.strip(), i));
                values.put(key, List.copyOf(items));
            } else {
                StringBuilder v = new StringBuilder(scalar(rest, i));
                // a plain value may continue on indented lines (YAML folds them with a space)
                while (!rest.startsWith("\"") && !rest.startsWith("'") && i < end && !lines.get(i).isBlank()
                        && Character.isWhitespace(lines.get(i).charAt(0))) {
                    v.append(' ').append(lines.get(i++).strip());
                }
                values.put(key, v.toString());
            }
        }
        StringBuilder body = new StringBuilder();
        for (int j = end + 1; j < lines.size(); j++) body.append(lines.get(j)).append('\n');
        return new Parsed(values, body.toString().strip());
    }

    /** The UTF-8 text of {@code file}, at most {@code maxBytes} long ({@code what} names it in the error: "a SKILL.md"). */
    public static String read(java.nio.file.Path file, int maxBytes, String what) throws Invalid {
        try {
            long size = java.nio.file.Files.size(file);
            if (size > maxBytes) throw new Invalid("it is " + size + " bytes, more than the " + maxBytes + " " + what + " may have");
            return java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(java.nio.file.Files.readAllBytes(file))).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new Invalid("it is not UTF-8 text");
        } catch (java.io.IOException e) {
            throw new Invalid("it cannot be read (" + e.getMessage() + ")");
        }
    }

    private static String scalar(String s, int line) throws Invalid {
        if (s.startsWith("\"") || s.startsWith("'")) {
            char q = s.charAt(0);
            if (s.length() < 2 || s.charAt(s.length() - 1) != q) throw new Invalid("line " + line + " of the front matter has an unclosed quote");
            String inner = s.substring(1, s.length() - 1);
            return q == '\'' ? inner.replace("''", "'")
                    : inner.replace("\\\"", "\"").replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\");
        }
        int comment = s.indexOf(" #");
        return (comment >= 0 ? s.substring(0, comment) : s).strip();
    }
}
