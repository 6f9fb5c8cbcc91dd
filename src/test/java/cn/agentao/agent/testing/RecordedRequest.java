package cn.agentao.agent.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A request the {@link FakeModelServer} received, with its parsed JSON body; header names are lower-case. */
public final class RecordedRequest {

    /** Which API the request was for. */
    public enum Api { OPENAI, ANTHROPIC, OPENAI_RESPONSES }

    private final Api api;
    private final String method;
    private final String path;
    private final Map<String, List<String>> headers;
    private final String rawBody;
    private final JsonNode body;
    private final CountDownLatch clientGone = new CountDownLatch(1);

    RecordedRequest(Api api, String method, String path, Map<String, List<String>> headers, String rawBody, JsonNode body) {
        this.api = api;
        this.method = method;
        this.path = path;
        this.headers = headers;
        this.rawBody = rawBody;
        this.body = body == null ? MissingNode.getInstance() : body;
    }

    public Api api() {
        return api;
    }

    public String method() {
        return method;
    }

    public String path() {
        return path;
    }

    public Map<String, List<String>> headers() {
        return headers;
    }

    /** The first value of a header (case-insensitive), or null. */
    public String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    public String rawBody() {
        return rawBody;
    }

    public JsonNode body() {
        return body;
    }

    public boolean streaming() {
        return body.path("stream").asBoolean(false);
    }

    public String model() {
        return body.path("model").asText(null);
    }

    public JsonNode messages() {
        return body.path("messages");
    }

    public JsonNode tools() {
        return body.path("tools");
    }

    /**
     * The text of the last user message that has text (OpenAI: role {@code user}; Anthropic: a user turn with text
     * blocks, so tool results do not count; the Responses API: its {@code input} text), or "" if there is none.
     */
    public String lastUserMessage() {
        if (api == Api.OPENAI_RESPONSES && body.path("input").isTextual()) {
            return body.path("input").asText();
        }
        JsonNode messages = messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            JsonNode message = messages.get(i);
            if (!"user".equals(message.path("role").asText())) {
                continue;
            }
            String text = text(message.path("content"));
            if (!text.isEmpty()) {
                return text;
            }
        }
        return "";
    }

    private static String text(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder out = new StringBuilder();
        for (JsonNode part : content) {
            if ("text".equals(part.path("type").asText())) {
                out.append(part.path("text").asText());
            }
        }
        return out.toString();
    }

    void markClientGone() {
        clientGone.countDown();
    }

    /** Whether the client closed the connection before the server finished answering. */
    public boolean clientDisconnected() {
        return clientGone.getCount() == 0;
    }

    /** Waits until the client closed the connection early; false if it did not within {@code timeout}. */
    public boolean awaitClientDisconnect(Duration timeout) throws InterruptedException {
        return clientGone.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public String toString() {
        return method + " " + path + " " + (rawBody.length() > 200 ? rawBody.substring(0, 200) + "…" : rawBody);
    }
}
