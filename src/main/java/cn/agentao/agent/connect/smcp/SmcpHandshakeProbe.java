package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.net.Network;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads why an office server refused the Socket.IO handshake. Socket.IO clients report a refused handshake as a
 * bare transport error, so the agent asks the same URL with a plain HTTP request: an HTTP 400 carries
 * {@code {code, message, server_version, client_version}} (4008: protocol version mismatch).
 */
final class SmcpHandshakeProbe {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private SmcpHandshakeProbe() {}

    /** A refusal the agent must not retry. */
    record Refusal(int code, String sentence) {}

    /** The server's refusal, or empty when it did not refuse (unreachable, or the handshake would work). */
    static Optional<Refusal> check(SmcpConfig config) {
        URI uri = URI.create(config.url() + SmcpClient.NAMESPACE + "/?EIO=4&transport=polling&a2c_version="
                + URLEncoder.encode(config.a2cVersion(), StandardCharsets.UTF_8));
        HttpClient http = Network.get().configure(HttpClient.newBuilder().connectTimeout(TIMEOUT), "https".equals(uri.getScheme())).build();
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        if (response.statusCode() != 400) return Optional.empty();
        return Optional.of(refusal(config, response.body(), response.headers().firstValue("X-A2C-Error-Code").orElse(null)));
    }

    static Refusal refusal(SmcpConfig config, String body, String codeHeader) {
        JsonNode json;
        try {
            json = Json.mapper().readTree(body);
        } catch (IOException | RuntimeException e) {
            json = null;
        }
        int code = json != null && json.path("code").canConvertToInt() ? json.path("code").asInt()
                : codeHeader != null && codeHeader.matches("\\d+") ? Integer.parseInt(codeHeader) : 400;
        if (code == 4008) {
            String server = json != null ? json.path("server_version").asText("") : "";
            return new Refusal(code, "this server speaks A2C " + (server.isBlank() ? "another version" : server)
                    + ", the agent speaks " + config.a2cVersion()
                    + " (set \"a2cVersion\" in the \"smcp\" section of config.json if the server is right); not retrying");
        }
        String message = json != null && json.hasNonNull("message") ? json.get("message").asText() : "HTTP 400";
        return new Refusal(code, "the office server refused the connection: " + message + "; not retrying");
    }
}
