package cn.agentao.agent.model;

import cn.agentao.agent.net.Network;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The one cheap call {@code agent login} makes before saving: list the provider's models (no tokens spent).
 * OpenAI-compatible {@code GET {base}/models} with a bearer key, Anthropic {@code GET {base}/v1/models} with
 * {@code x-api-key}, Ollama {@code GET {root}/api/tags}. The key goes to that endpoint only, through the agent's
 * proxy and CA settings, and never into the result.
 */
public final class KeyCheck {
    static final String ANTHROPIC_VERSION = "2023-06-01";

    /** How it went: {@code ok}; else {@code refused} (the provider said the key is wrong) and words for the user. */
    public record Result(boolean ok, boolean refused, String message) {}

    private KeyCheck() {}

    public static Result check(ProviderKind kind, String baseUrl, String apiKey, Duration timeout) {
        URI target;
        HttpRequest.Builder request;
        try {
            switch (kind) {
                case ANTHROPIC -> {
                    target = URI.create(StreamingModelFactory.anthropicBaseUrl(baseUrl) + "/models");
                    request = HttpRequest.newBuilder(target).header("x-api-key", apiKey).header("anthropic-version", ANTHROPIC_VERSION);
                }
                case OLLAMA -> {
                    target = URI.create(StreamingModelFactory.ollamaBaseUrl(baseUrl) + "/api/tags");
                    request = HttpRequest.newBuilder(target);
                }
                default -> {
                    target = URI.create(baseUrl.strip().replaceAll("/+$", "") + "/models");
                    request = HttpRequest.newBuilder(target);
                    if (apiKey != null) request.header("Authorization", "Bearer " + apiKey);
                }
            }
        } catch (IllegalArgumentException e) {
            return new Result(false, false, "\"" + baseUrl + "\" is not a URL");
        }
        if (target.getScheme() == null || !target.getScheme().matches("https?")) {
            return new Result(false, false, "\"" + baseUrl + "\" is not an http(s) URL");
        }
        boolean tls = "https".equalsIgnoreCase(target.getScheme());
        HttpClient http = Network.get().configure(HttpClient.newBuilder(), tls).connectTimeout(timeout).build();
        try {
            HttpResponse<Void> response = http.send(Network.get().authorize(request.timeout(timeout).GET(), target).build(),
                    HttpResponse.BodyHandlers.discarding());
            int status = response.statusCode();
            if (status >= 200 && status < 300) return new Result(true, false, apiKey == null ? "the server answered" : "the provider accepted the key");
            if (status == 401 || status == 403) {
                return new Result(false, true, "the provider refused the key (HTTP " + status + " from " + target.getHost() + ")");
            }
            return new Result(false, false, "HTTP " + status + " from " + target + " (the server may not list models)");
        } catch (IOException e) {
            return new Result(false, false, "cannot reach " + target.getHost() + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(false, false, "interrupted");
        } finally {
            http.close();
        }
    }
}
