package cn.agentao.agent.model;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * An error the provider reported inside a stream that had started with HTTP 200, e.g.
 * {@code {"error": {"type": "server_error", "code": 500, "message": "..."}}}. Its exception message is the
 * provider's message only.
 */
final class ProviderErrorEvent extends RuntimeException {
    private final String type;
    private final int code;

    private ProviderErrorEvent(String type, int code, String message) {
        super(message, null, false, false);
        this.type = type;
        this.code = code;
    }

    /** The event for a JSON text with an {@code error} member, or null when the text is not one. */
    static ProviderErrorEvent parse(String json) {
        if (json == null || !json.strip().startsWith("{")) {
            return null;
        }
        try {
            JsonNode error = Json.mapper().readTree(json).path("error");
            if (error.isTextual()) {
                return new ProviderErrorEvent("", 0, error.asText());
            }
            if (!error.isObject()) {
                return null;
            }
            JsonNode code = error.path("code");
            String type = error.path("type").asText(code.isTextual() ? code.asText() : "");
            int status = code.canConvertToInt() ? code.asInt() : error.path("status").asInt(0);
            return new ProviderErrorEvent(type, status, error.path("message").asText(""));
        } catch (IOException e) {
            return null;
        }
    }

    /** The error type, e.g. {@code server_error}, {@code rate_limit_exceeded}, {@code overloaded_error}; may be empty. */
    String type() {
        return type;
    }

    /** A numeric HTTP-like code when the provider gave one, else 0. */
    int code() {
        return code;
    }
}
