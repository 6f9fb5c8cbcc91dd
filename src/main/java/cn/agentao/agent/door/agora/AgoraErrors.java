package cn.agentao.agent.door.agora;

import com.fasterxml.jackson.databind.JsonNode;

/** The spec's error codes in plain words for the person running the agent. */
final class AgoraErrors {
    private AgoraErrors() {}

    /** Codes after which trying again with the same settings cannot help. */
    static boolean fatal(String code) {
        return "UNAUTHORIZED".equals(code);
    }

    static String describe(JsonNode error, String space) {
        String code = AgoraMessages.text(error, "code");
        String message = AgoraMessages.text(error, "message");
        String where = space == null ? "" : " (space \"" + space + "\")";
        String words = switch (code == null ? "" : code) {
            case "UNAUTHORIZED" -> "the Agora server refused this agent: the token is missing or wrong (set it with --token-env)";
            case "AGENT_EXISTS" -> "another agent is already connected with this --agent-id";
            case "SPACE_NOT_FOUND" -> "there is no such space" + where;
            case "SPACE_FULL" -> "the space is full" + where;
            case "RATE_LIMITED" -> "the Agora server says this agent sends too fast" + where;
            case "INVALID_REQUEST" -> "the Agora server did not understand a message from this agent" + where;
            default -> "the Agora server reported " + (code == null ? "an error" : code) + where;
        };
        return message == null || message.isBlank() ? words : words + " — server: " + message;
    }
}
