package cn.agentao.agent.connect.mcp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;

/**
 * The names under which MCP tools and prompts are offered: tools as {@code mcp__<server>__<tool>} (what model
 * providers accept: {@code [A-Za-z0-9_-]}, at most 64 characters), prompts as the slash command
 * {@code mcp.<server>.<prompt>}. Parts are sanitised; a name that is too long, or that clashes after
 * sanitising, gets a short hash of the original so it stays stable and unique.
 */
public final class McpNames {
    static final int MAX_LENGTH = 64;
    static final String TOOL_PREFIX = "mcp__";
    static final String TOOL_SEPARATOR = "__";
    static final String COMMAND_PREFIX = "mcp.";
    /** Server keys are kept short so the tool or prompt name has room. */
    static final int MAX_SERVER_KEY = 24;
    private static final int HASH_LENGTH = 6;

    private McpNames() {}

    /** A server's part of every name it offers: unique within {@code taken}, which it joins. */
    public static String serverKey(String serverName, Set<String> taken) {
        return claim(fit(sanitise(serverName), MAX_SERVER_KEY, serverName), serverName, taken);
    }

    /**
     * A key for a party whose name others may copy up to the characters sanitising replaces (an SMCP Computer):
     * the name itself when it is already clean and short, else its sanitised form with a short hash of the
     * original, so {@code a.b} and {@code a_b} never share a key, whatever order they come in; unique within
     * {@code taken}, which it joins.
     */
    public static String distinctKey(String name, Set<String> taken) {
        String clean = sanitise(name);
        String key = clean.equals(name) && clean.length() <= MAX_SERVER_KEY ? clean
                : clean.substring(0, Math.min(clean.length(), MAX_SERVER_KEY - HASH_LENGTH - 1)) + "_" + hash(name);
        return claim(key, name, taken);
    }

    /** {@code mcp__<serverKey>__<tool>}, unique within {@code taken}, which it joins. */
    static String toolName(String serverKey, String toolName, Set<String> taken) {
        return toolName(TOOL_PREFIX, serverKey, toolName, taken);
    }

    /** {@code <prefix><serverKey>__<tool>}, unique within {@code taken}, which it joins (SMCP uses {@code smcp__}). */
    public static String toolName(String prefix, String serverKey, String toolName, Set<String> taken) {
        String head = prefix + serverKey + TOOL_SEPARATOR;
        return claim(head + fit(sanitise(toolName), MAX_LENGTH - head.length(), toolName), serverKey + "/" + toolName, taken);
    }

    /** {@code mcp.<serverKey>.<prompt>}, unique within {@code taken}, which it joins. */
    static String commandName(String serverKey, String promptName, Set<String> taken) {
        String head = COMMAND_PREFIX + serverKey + ".";
        return claim(head + fit(sanitise(promptName), MAX_LENGTH - head.length(), promptName), serverKey + "/" + promptName, taken);
    }

    /** Every character outside {@code [A-Za-z0-9_-]} becomes {@code _}. */
    static String sanitise(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-';
            out.append(ok ? c : '_');
        }
        return out.isEmpty() ? "_" : out.toString();
    }

    private static String fit(String name, int max, String original) {
        if (name.length() <= max) return name;
        return name.substring(0, max - HASH_LENGTH - 1) + "_" + hash(original);
    }

    private static String claim(String name, String original, Set<String> taken) {
        String candidate = name;
        for (int i = 1; !taken.add(candidate); i++) {
            String suffix = "_" + hash(original + "#" + i);
            candidate = (name.length() + suffix.length() > MAX_LENGTH ? name.substring(0, MAX_LENGTH - suffix.length()) : name) + suffix;
        }
        return candidate;
    }

    private static String hash(String s) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, HASH_LENGTH);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
