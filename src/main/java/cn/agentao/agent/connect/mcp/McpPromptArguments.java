package cn.agentao.agent.connect.mcp;

import io.modelcontextprotocol.spec.McpSchema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text after an MCP prompt's slash command, as the prompt's arguments:
 * <ul>
 *   <li>{@code key=value} pairs (values may be quoted: {@code city="San Francisco"}) when every word is such a
 *       pair and every key is an argument of the prompt;</li>
 *   <li>otherwise the whole text is the value of the prompt's first argument;</li>
 *   <li>a prompt without arguments takes none: the text is added after the prompt's own text.</li>
 * </ul>
 * A required argument left out is an error that shows the usage.
 */
final class McpPromptArguments {

    /** The arguments to send, and text to add after the prompt (only for a prompt without arguments). */
    record Parsed(Map<String, Object> arguments, String extraText) {}

    private McpPromptArguments() {}

    static Parsed parse(String command, List<McpSchema.PromptArgument> declared, String text) throws McpException {
        String input = text == null ? "" : text.strip();
        List<McpSchema.PromptArgument> args = declared == null ? List.of() : declared;
        if (args.isEmpty()) return new Parsed(Map.of(), input);
        Map<String, Object> values = new LinkedHashMap<>();
        if (!input.isEmpty()) {
            Map<String, String> pairs = pairs(input, args);
            if (pairs != null) values.putAll(pairs);
            else values.put(args.get(0).name(), input);
        }
        List<String> missing = new ArrayList<>();
        for (McpSchema.PromptArgument a : args) {
            if (Boolean.TRUE.equals(a.required()) && !values.containsKey(a.name())) missing.add(a.name());
        }
        if (!missing.isEmpty()) {
            throw new McpException("/" + command + " needs " + String.join(" and ", missing) + ". Usage: /" + command + " " + usage(args));
        }
        return new Parsed(values, "");
    }

    /** The input hint: the only argument's name, or {@code a=… [b=…]} (optional ones in brackets). */
    static String usage(List<McpSchema.PromptArgument> args) {
        if (args.size() == 1) return args.get(0).name();
        List<String> parts = new ArrayList<>();
        for (McpSchema.PromptArgument a : args) {
            String p = a.name() + "=…";
            parts.add(Boolean.TRUE.equals(a.required()) ? p : "[" + p + "]");
        }
        return String.join(" ", parts);
    }

    /** The {@code key=value} words, or null when the text is not made only of pairs with declared keys. */
    private static Map<String, String> pairs(String input, List<McpSchema.PromptArgument> args) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String word : words(input)) {
            int eq = word.indexOf('=');
            if (eq <= 0) return null;
            String key = word.substring(0, eq);
            if (args.stream().noneMatch(a -> a.name().equals(key))) return null;
            out.put(key, unquote(word.substring(eq + 1)));
        }
        return out.isEmpty() ? null : out;
    }

    /** Splits on whitespace outside double or single quotes (the quotes stay, for {@link #unquote}). */
    private static List<String> words(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
                cur.append(c);
            } else if (c == '"' || c == '\'') {
                quote = c;
                cur.append(c);
            } else if (Character.isWhitespace(c)) {
                if (!cur.isEmpty()) out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        if (!cur.isEmpty()) out.add(cur.toString());
        return out;
    }

    private static String unquote(String v) {
        if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }
}
