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
            case 4008 -> "the office server speaks another A2C protocol version" + detail;
            case 4101 -> "the office is full: another agent is already in it" + detail;
            case 4102 -> "the office was not found" + detail;
            case 4103 -> "the agent is not in that office" + detail;
            case 4104 -> "that Computer is in another office" + detail;
            case 4011 -> "the Computer has no document resolver" + detail;
            case 4012 -> "that is not a valid dpe:// document URI" + detail;
            case 4013 -> "the Computer could not resolve the document" + detail;
            case 404 -> "not found" + detail;
            default -> "the office answered with error " + code + detail;
        };
    }
}
