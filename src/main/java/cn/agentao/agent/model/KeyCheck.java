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

    /**
     * How it went: {@code ok}; else {@code refused} (the provider said the key is wrong) and words for the user;
     * {@code models}: the models the provider listed (empty when it did not).
     */
    public record Result(boolean ok, boolean refused, String message, java.util.List<String> models) {
        Result(boolean ok, boolean refused, String message) {
            this(ok, refused, message, java.util.List.of());
        }
    }

    /** The most of a model listing read (a listing is a few KB; a server that sends more is not read further). */
    private static final int LISTING_BYTES = 1 << 20;

    private KeyCheck() {}

    /** Why the endpoint could not be reached, in words (no exception class names). */
    private static String unreachable(IOException e) {
        String network = cn.agentao.agent.net.NetworkFailures.describe(e);
        if (network != null) return network;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.net.UnknownHostException || t instanceof java.nio.channels.UnresolvedAddressException) {
                return "no such host";
            }
        }
        if (e instanceof java.net.http.HttpTimeoutException) return "no answer in time";
        if (e instanceof java.net.ConnectException) return "the connection was refused";
        return e.getMessage() == null ? "the connection failed" : "the connection failed (" + e.getMessage() + ")";
    }

    /** The model ids of a listing: OpenAI's and Anthropic's {@code data[].id}, Ollama's {@code models[].name}. */
    static java.util.List<String> models(byte[] body) {
        java.util.List<String> ids = new java.util.ArrayList<>();
        try {
            com.fasterxml.jackson.databind.JsonNode listing = cn.agentao.agent.util.Json.mapper().readTree(body);
            if (listing == null) return ids;
            for (com.fasterxml.jackson.databind.JsonNode m : listing.path("data")) if (m.path("id").isTextual()) ids.add(m.path("id").asText());
            for (com.fasterxml.jackson.databind.JsonNode m : listing.path("models")) if (m.path("name").isTextual()) ids.add(m.path("name").asText());
        } catch (IOException e) {
            // not a listing: no models to offer
        }
        return ids;
    }

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
            HttpResponse<java.io.InputStream> response = http.send(Network.get().authorize(request.timeout(timeout).GET(), target).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            int status = response.statusCode();
            byte[] body;
            try (java.io.InputStream in = response.body()) {
                body = in.readNBytes(LISTING_BYTES);
            }
            if (status >= 200 && status < 300) {
                return new Result(true, false, apiKey == null ? "the server answered" : "the provider accepted the key", models(body));
            }
            if (status == 401 || status == 403) {
                return new Result(false, true, "the provider refused the key (HTTP " + status + " from " + target.getHost() + ")");
            }
            return new Result(false, false, "HTTP " + status + " from " + target + " (the server may not list models)");
        } catch (IOException e) {
            return new Result(false, false, "cannot reach " + target.getHost() + ": " + unreachable(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(false, false, "interrupted");
        } finally {
            http.close();
        }
    }
}
