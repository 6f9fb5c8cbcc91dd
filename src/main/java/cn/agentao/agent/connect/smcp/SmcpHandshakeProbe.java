package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;

import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads why an office server refused the Socket.IO handshake. Socket.IO clients report a refused handshake as a
 * bare transport error, so the agent asks the same URL with a plain HTTP request: an HTTP 400 carries
 * {@code {code, message, server_version, client_version, min_supported, max_supported}} (4008: protocol version
 * mismatch; the range is there from 0.3 on).
 */
final class SmcpHandshakeProbe {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private SmcpHandshakeProbe() {}

    /**
     * A refusal the agent must not retry as it was; after a 4008 the office may reconnect once with a version
     * {@link #accepted()} names.
     */
    record Refusal(int code, String sentence, String offered, String serverVersion, String minSupported, String maxSupported) {
        /** Another version the agent speaks that this server accepts (only after 4008). */
        Optional<String> accepted() {
            return code == 4008 ? SmcpVersions.accepted(offered, serverVersion, minSupported, maxSupported) : Optional.empty();
        }
    }

    /**
     * The server's refusal of {@code version}, or empty when it did not refuse (unreachable, or the handshake would
     * work). Asked with the connection's own HTTP client, so it takes the same proxy (with its credentials) and TLS.
     */
    static Optional<Refusal> check(SmcpConfig config, String version, OkHttpClient http) {
        String url = config.url() + SmcpClient.NAMESPACE + "/?EIO=4&transport=polling&a2c_version="
                + URLEncoder.encode(version, StandardCharsets.UTF_8);
        OkHttpClient once = http.newBuilder().callTimeout(TIMEOUT).build();
        try (Response response = once.newCall(new Request.Builder().url(url).get().build()).execute()) {
            if (response.code() != 400) return Optional.empty();
            ResponseBody body = response.body();
            String text = body == null ? "" : body.string();
            return Optional.of(refusal(config, version, text, response.header("X-A2C-Error-Code")));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    static Refusal refusal(SmcpConfig config, String version, String body, String codeHeader) {
        JsonNode json;
        try {
            json = Json.mapper().readTree(body);
        } catch (IOException | RuntimeException e) {
            json = null;
        }
        int code = json != null && json.path("code").canConvertToInt() ? json.path("code").asInt()
                : codeHeader != null && codeHeader.matches("\\d+") ? Integer.parseInt(codeHeader) : 400;
        if (code == 4008) {
            String server = text(json, "server_version");
            String min = text(json, "min_supported");
            String max = text(json, "max_supported");
            String range = min != null && max != null ? "; it accepts " + min + " to " + max : "";
            String sentence = config.a2cVersion() != null
                    ? "this server speaks A2C " + (server == null ? "another version" : server) + ", the agent speaks " + version
                    + " (set \"a2cVersion\" in the \"smcp\" section of config.json if the server is right)" + range + "; not retrying"
                    : "this server speaks A2C " + (server == null ? "another version" : server) + ", the agent speaks "
                    + String.join(" or ", SmcpVersions.SPOKEN) + range + "; not retrying";
            return new Refusal(code, sentence, version, server, min, max);
        }
        String message = json != null && json.hasNonNull("message") ? json.get("message").asText() : "HTTP 400";
        return new Refusal(code, "the office server refused the connection: " + message + "; not retrying", version, null, null, null);
    }

    private static String text(JsonNode json, String field) {
        return json != null && json.path(field).isTextual() && !json.get(field).asText().isBlank() ? json.get(field).asText().strip() : null;
    }
}
