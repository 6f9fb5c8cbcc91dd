package cn.agentao.agent.connect.smcp;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The A2C-SMCP error codes in plain words ({@code {code, message}} answers, or a message that starts with a code). */
final class SmcpErrors {
    static final int TIMEOUT = 4004;
    private static final Pattern LEADING_CODE = Pattern.compile("^\\s*(\\d{3,4})\\b[\\s:,-]*(.*)$", Pattern.DOTALL);

    private SmcpErrors() {}

    /** An error answer ({@code {code, message}}, or {@code {error: {code, message}}}) in plain words; empty when it is none. */
    static Optional<String> of(JsonNode answer) {
        if (answer == null || !answer.isObject()) return Optional.empty();
        JsonNode e = answer.has("error") && answer.get("error").isObject() ? answer.get("error") : answer;
        if (!e.has("code") || answer.has("content")) return Optional.empty();
        return Optional.of(describe(e.path("code").asInt(), e.path("message").asText("")));
    }

    /**
     * How a failed tool result ended, from its result-level A2C markers ({@code meta}, 0.3): cancelled, timed out, or an
     * authorization error ({@code meta.error_code} 4006/4007); empty for an ordinary failure.
     */
    static Optional<String> ofResult(JsonNode result) {
        JsonNode meta = result == null ? null : result.path("meta");
        if (meta == null || !meta.isObject()) return Optional.empty();
        if (meta.path("a2c_cancelled").asBoolean(false)) return Optional.of("the call was cancelled on the Computer");
        if (meta.path("a2c_timeout").asBoolean(false)) return Optional.of("the call timed out on the Computer");
        int code = meta.path("error_code").asInt(0);
        return code == 4006 || code == 4007 ? Optional.of(describe(code, null)) : Optional.empty();
    }

    /** A refusal text such as {@code "4101 office full: ..."} in plain words. */
    static String describe(String text) {
        if (text == null || text.isBlank()) return "the office server gave no reason";
        Matcher m = LEADING_CODE.matcher(text);
        return m.matches() ? describe(Integer.parseInt(m.group(1)), m.group(2)) : text;
    }

    static String describe(int code, String message) {
        String detail = message == null || message.isBlank() ? "" : " (" + message.strip() + ")";
        return switch (code) {
            case 4001 -> "the tool or Computer was not found" + detail;
            case 4002 -> "the tool is disabled on its Computer" + detail;
            case 4003 -> "the tool failed on its Computer" + detail;
            case 4004 -> "the Computer did not answer in time" + detail;
            case 4005 -> "the tool needs a confirmation on its Computer" + detail;
            case 4006 -> "the tool's MCP server needs an authorization on the Computer (e.g. an OAuth sign-in) first" + detail;
            case 4007 -> "the tool's MCP server refused the Computer's authorization (expired or insufficient)" + detail;
            case 4008 -> "the office server speaks another A2C protocol version" + detail;
            case 4101 -> "the office is full: another agent is already in it" + detail;
            case 4102 -> "the office was not found" + detail;
            case 4103 -> "the agent is not in that office" + detail;
            case 4104 -> "that Computer is in another office" + detail;
            case 4011 -> "the Computer has no document resolver" + detail;
            case 4012 -> "that is not a valid dpe:// document URI" + detail;
            case 4013 -> "the Computer could not resolve the document" + detail;
            case 4014 -> "that MCP server (bundle id) is not on the Computer" + detail;
            case 4015 -> "that MCP server does not offer this capability" + detail;
            case 4016 -> "that is not a valid SKILL name" + detail;
            case 4017 -> "that SKILL file cannot be read (outside the SKILL, forbidden, missing or too large)" + detail;
            case 4018 -> "the Computer cannot serve that blob (unknown handle, forbidden, gone or out of range)" + detail;
            case 404 -> "not found" + detail;
            default -> "the office answered with error " + code + detail;
        };
    }
}
