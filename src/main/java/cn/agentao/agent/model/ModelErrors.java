package cn.agentao.agent.model;

import cn.agentao.agent.model.ModelException.Kind;
import cn.agentao.agent.net.Network;
import cn.agentao.agent.net.NetworkFailures;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.SecretMask;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns whatever went wrong in a call into a {@link ModelException} with words a user can act on. Provider error
 * text is quoted only after the API key (and anything shaped like one) has been blanked out.
 */
final class ModelErrors {
    private static final Pattern KEY_LIKE = Pattern.compile("\\b(sk|pk|key)-[A-Za-z0-9_*.\\-]{6,}");
    private static final int MAX_DETAIL = 300;
    private static final Set<String> KNOWN_STREAM_ERRORS = Set.of("overloaded_error", "api_error",
            "server_error", "rate_limit_error", "rate_limit_exceeded", "authentication_error", "permission_error",
            "invalid_api_key", "not_found_error", "model_not_found", "timeout_error");

    private final ResolvedProvider provider;
    private final String model;

    ModelErrors(ResolvedProvider provider, String model) {
        this.provider = provider;
        this.model = model;
    }

    ModelException cancelled() {
        return new ModelException(Kind.CANCELLED, "The model call was cancelled.");
    }

    ModelException idleTimeout(Duration idle, boolean outputStarted) {
        String what = outputStarted ? "The model stopped sending output" : "The model sent nothing";
        return new ModelException(Kind.TIMEOUT, what + " for " + seconds(idle) + "; the call was abandoned.");
    }

    /** The body ended cleanly but without the API's end of answer ({@code [DONE]} / finish reason, {@code message_stop}). */
    ModelException streamEndedEarly() {
        return new ModelException(Kind.CONNECTION, "The model provider's stream ended before the answer was complete "
                + "(the connection closed without the end-of-answer event).", 0, true, null);
    }

    /** An HTTP error answer; {@code body} is the provider's error text. */
    ModelException httpError(int status, String body) {
        String detail = detail(body);
        String quoted = detail.isEmpty() ? "" : " The provider said: " + detail;
        return switch (status) {
            case 401, 403 -> new ModelException(Kind.AUTH, "The model provider rejected the API key (HTTP " + status + "). "
                    + checkKey() + quoted, status, false, null);
            case 404 -> new ModelException(Kind.MODEL_NOT_FOUND, "The model provider at " + displayUrl()
                    + " does not know the model '" + model + "' (HTTP 404). Check the model name and the base URL." + quoted,
                    status, false, null);
            case 407 -> new ModelException(Kind.CONNECTION, "Could not reach the model provider at " + displayUrl() + ": "
                    + NetworkFailures.proxyAuthenticationRequired() + ".", status, false, null);
            case 408 -> new ModelException(Kind.TIMEOUT, "The model provider timed out (HTTP 408)." + quoted,
                    status, true, null);
            case 429 -> new ModelException(Kind.RATE_LIMITED, "The model provider is rate limiting requests (HTTP 429). "
                    + "Wait a moment and try again." + quoted, status, true, null);
            default -> status >= 500
                    ? new ModelException(Kind.SERVER, "The model provider had a server error (HTTP " + status + "). "
                            + "Try again later." + quoted, status, true, null)
                    : new ModelException(Kind.OTHER, "The model provider rejected the request (HTTP " + status + ")."
                            + quoted, status, false, null);
        };
    }

    /** A failure reported by LangChain4j or the transport, with no HTTP error status. */
    ModelException failure(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof MalformedStreamException m) { // the same request would get the same answer: not retried
                return new ModelException(Kind.OTHER, "The model provider at " + displayUrl() + " sent data that is not a "
                        + "valid event stream (a line starting \"" + redact(m.lineStart()) + "\"); the answer was abandoned. "
                        + "Check that the base URL is the provider's API.", 0, false, null);
            }
            if (t instanceof com.fasterxml.jackson.core.JsonProcessingException) { // e.g. Ollama's lines, read by LangChain4j
                return new ModelException(Kind.OTHER, "The model provider at " + displayUrl() + " sent data that is not "
                        + "valid JSON; the answer was abandoned. Check that the base URL is the provider's API.", 0, false, null);
            }
            if (t instanceof SseReader.TooLarge) {
                return new ModelException(Kind.OTHER, "The model provider at " + displayUrl() + " sent one event of more than "
                        + SseReader.MAX_EVENT_BYTES / (1024 * 1024) + " MiB, the most this agent accepts; the answer was refused.",
                        0, false, null);
            }
            if (t instanceof ProviderErrorEvent event) {
                return streamError(event.type(), event.code(), event.getMessage());
            }
            ProviderErrorEvent event = t.getClass() == RuntimeException.class ? ProviderErrorEvent.parse(t.getMessage()) : null;
            if (event != null) { // the stream readers turn an "event: error" into RuntimeException(data)
                return streamError(event.type(), event.code(), event.getMessage());
            }
            if (t instanceof HttpConnectTimeoutException) {
                return new ModelException(Kind.TIMEOUT, "Could not connect to the model provider at " + displayUrl()
                        + via() + " in time.", 0, true, t);
            }
            if (t instanceof HttpTimeoutException || t instanceof dev.langchain4j.exception.TimeoutException) {
                return new ModelException(Kind.TIMEOUT, "The model provider at " + displayUrl() + " did not answer in time.",
                        0, false, t);
            }
            String network = t instanceof IOException ? NetworkFailures.describe(t) : null;
            if (network != null) {
                return new ModelException(Kind.CONNECTION, "Could not reach the model provider at " + displayUrl() + ": "
                        + network + ".", 0, false, t);
            }
            if (t instanceof ConnectException && !hostNotFound(t)) { // else: said below, when the loop reaches the cause
                return new ModelException(Kind.CONNECTION, "Could not connect to the model provider at " + displayUrl()
                        + via() + " (connection refused).", 0, true, t);
            }
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
                return new ModelException(Kind.CONNECTION, "Could not find the model provider's host for " + displayUrl()
                        + ". Check the base URL.", 0, false, t);
            }
        }
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IOException) {
                return new ModelException(Kind.CONNECTION, "The connection to the model provider at " + displayUrl()
                        + " was lost (" + redact(String.valueOf(t.getMessage())) + ").", 0, true, t);
            }
        }
        String detail = detail(error.getMessage());
        return new ModelException(Kind.OTHER, "The model call failed" + (detail.isEmpty() ? "." : ": " + detail),
                0, false, null);
    }

    /** Whether {@code t} was caused by a host name that did not resolve (the JDK's client calls that a ConnectException). */
    private static boolean hostNotFound(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof UnknownHostException || c instanceof UnresolvedAddressException) return true;
        }
        return false;
    }

    /** An error reported inside a stream that began with HTTP 200, by type (Anthropic's or OpenAI's) or code. */
    private ModelException streamError(String type, int code, String message) {
        String detail = message == null || message.isBlank() ? "" : " The provider said: " + redact(clip(message));
        String kind = type == null ? "" : type;
        if (kind.isEmpty() || !KNOWN_STREAM_ERRORS.contains(kind)) {
            kind = code >= 500 ? "api_error" : code == 429 ? "rate_limit_error" : code == 401 || code == 403
                    ? "authentication_error" : code == 404 ? "not_found_error" : kind;
        }
        return switch (kind) {
            case "overloaded_error", "api_error", "server_error" -> new ModelException(Kind.SERVER,
                    "The model provider is overloaded or had a server error. Try again later." + detail, 0, true, null);
            case "rate_limit_error", "rate_limit_exceeded" -> new ModelException(Kind.RATE_LIMITED,
                    "The model provider is rate limiting requests. Wait a moment and try again." + detail, 0, true, null);
            case "authentication_error", "permission_error", "invalid_api_key" -> new ModelException(Kind.AUTH,
                    "The model provider rejected the API key. " + checkKey() + detail, 0, false, null);
            case "not_found_error", "model_not_found" -> new ModelException(Kind.MODEL_NOT_FOUND,
                    "The model provider does not know the model '" + model + "'." + detail, 0, false, null);
            case "timeout_error" -> new ModelException(Kind.TIMEOUT, "The model provider timed out." + detail, 0, true, null);
            default -> new ModelException(Kind.OTHER, "The model provider reported an error." + detail, 0, false, null);
        };
    }

    /** Names the proxy the provider is reached through, if any. */
    private String via() {
        try {
            return Network.get().via(URI.create(provider.baseUrl().strip()));
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    private String checkKey() {
        return provider.apiKeyOrigin() != null ? "Check " + provider.apiKeyOrigin() + "." : "Check its credentials.";
    }

    /** The provider's own explanation from an error body ({@code error.message} or {@code message}), redacted. */
    String detail(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        String text = body.strip();
        if (text.startsWith("{")) {
            try {
                JsonNode root = Json.mapper().readTree(text);
                JsonNode message = root.path("error").isObject() ? root.path("error").path("message") : root.path("message");
                if (message.isMissingNode() && root.path("error").isTextual()) {
                    message = root.path("error");
                }
                if (message.isTextual()) {
                    text = message.asText();
                }
            } catch (IOException | RuntimeException e) {
                // not JSON after all: quote it as text
            }
        }
        return redact(clip(text.replaceAll("\\s+", " ")));
    }

    String redact(String text) {
        String out = SecretMask.mask(text, Collections.singletonList(provider.apiKey()), 1);
        return KEY_LIKE.matcher(out).replaceAll(SecretMask.MASK);
    }

    /** The base URL without user info, query or fragment, which may carry secrets. */
    String displayUrl() {
        try {
            URI uri = URI.create(provider.baseUrl());
            return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null).toString();
        } catch (Exception e) {
            return "the configured base URL";
        }
    }

    private static String clip(String text) {
        return text.length() <= MAX_DETAIL ? text : text.substring(0, MAX_DETAIL) + "…";
    }

    private static String seconds(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
