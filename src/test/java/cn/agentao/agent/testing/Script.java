package cn.agentao.agent.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the {@link FakeModelServer} answers to one request: either a streamed (or, for non-stream requests,
 * complete) reply made of steps, or an HTTP error, possibly repeated {@link #times(int)} times. Build it fluently
 * and do not change it after handing it to the server.
 *
 * <pre>{@code
 * Script.reply().reasoning("Let me", " think").text("Hel", "lo").usage(12, 3)
 * Script.reply().toolCall("call_1", "read_file", "{\"path\":\"a.txt\"}", 4)      // finish defaults to tool_calls
 * Script.reply().delay(1000).text("slow", "stream")
 * Script.reply().text("partial").dropConnection()
 * Script.reply().text("partial").truncate()                                    // ends cleanly, without [DONE]
 * Script.reply().raw("data: {not json\n\n")                                      // a body that is not a valid stream
 * Script.httpError(429, null).retryAfter(1).times(2)
 * }</pre>
 */
public final class Script {

    /** One thing the server does while answering. */
    public sealed interface Step {}

    /** Text deltas, one streamed chunk each. */
    public record Text(List<String> chunks) implements Step {}

    /** Reasoning deltas ({@code reasoning_content} / {@code thinking_delta}), one chunk each. */
    public record Reasoning(List<String> chunks) implements Step {}

    /** A tool call whose arguments are streamed in {@code pieces} roughly equal parts. */
    public record ToolCall(String id, String name, String arguments, int pieces) implements Step {}

    /** The finish reason in OpenAI's words ({@code stop}, {@code tool_calls}, {@code length}, {@code content_filter}). */
    public record Finish(String reason) implements Step {}

    /** The token usage reported at the end. */
    public record Usage(int input, int output, int cachedInput) implements Step {
        public Usage(int input, int output) {
            this(input, output, 0);
        }
    }

    /** From here on, wait this long before every chunk. */
    public record Delay(long millis) implements Step {}

    /** Wait once, here. */
    public record Pause(long millis) implements Step {}

    /** Cut the connection here, without ending the response properly. */
    public record Drop() implements Step {}

    /** End the response properly here, but without the API's closing events ({@code [DONE]}, {@code message_stop}). */
    public record Truncate() implements Step {}

    /**
     * An error reported inside the stream after a 200 (OpenAI-compatible servers send {@code data: {"error": …}},
     * Anthropic an {@code error} event); {@code type} e.g. {@code server_error} / {@code overloaded_error}.
     * The response ends after it.
     */
    public record StreamError(String type, String message) implements Step {}

    /** Bytes written into the response body as they are (e.g. lines that are not a valid event stream). */
    public record Raw(String text) implements Step {}

    /** Send nothing more until the client goes away (the server notices and records it). */
    public record Hang() implements Step {}

    /**
     * The provider's own web search, run on its side (OpenAI's {@code web_search} tool in the Responses API,
     * Anthropic's {@code web_search_20250305} server tool): the pages it found, then an answer citing each
     * ({@code url_citation} annotations / {@code web_search_result_location} citations, the snippet as the cited text).
     * In a non-streamed answer only; a stream leaves it out.
     */
    public record WebSearch(String query, List<Page> pages) implements Step {}

    /** One page a provider's web search found. */
    public record Page(String title, String url, String snippet) {}

    /** An error answer instead of a reply. */
    public record HttpError(int status, String body, Map<String, String> headers) {}

    private final List<Step> steps = new ArrayList<>();
    private final HttpError error;
    private int times = 1;

    private Script(HttpError error) {
        this.error = error;
    }

    /** An empty reply to add steps to. */
    public static Script reply() {
        return new Script(null);
    }

    /** A reply of one text chunk. (Not a static {@code text(String)}: that would hijack {@code reply().text("x")}.) */
    public static Script textReply(String text) {
        return reply().text(text);
    }

    /** An error answer; {@code body} null means a realistic error body for the API that was called. */
    public static Script httpError(int status, String body) {
        return new Script(new HttpError(status, body, new LinkedHashMap<>()));
    }

    public Script text(String... chunks) {
        return add(new Text(List.of(chunks)));
    }


    /** The same chunk {@code count} times, e.g. for streaming benchmarks. */
    public Script repeatedText(String chunk, int count) {
        return add(new Text(Collections.nCopies(count, chunk)));
    }

    public Script reasoning(String... chunks) {
        return add(new Reasoning(List.of(chunks)));
    }

    public Script toolCall(String id, String name, String argumentsJson, int pieces) {
        return add(new ToolCall(id, name, argumentsJson, Math.max(1, pieces)));
    }

    public Script toolCall(String id, String name, String argumentsJson) {
        return toolCall(id, name, argumentsJson, 3);
    }

    /** A provider-side web search for {@code query} that found {@code pages} (see {@link WebSearch}). */
    public Script webSearch(String query, Page... pages) {
        return add(new WebSearch(query, List.of(pages)));
    }

    public Script finish(String reason) {
        return add(new Finish(reason));
    }

    public Script usage(int input, int output) {
        return add(new Usage(input, output));
    }

    /** Usage with {@code cachedInput} of the input tokens read from the provider's prompt cache. */
    public Script usage(int input, int output, int cachedInput) {
        return add(new Usage(input, output, cachedInput));
    }

    public Script delay(long millis) {
        return add(new Delay(millis));
    }

    public Script pause(long millis) {
        return add(new Pause(millis));
    }

    public Script dropConnection() {
        return add(new Drop());
    }

    public Script hang() {
        return add(new Hang());
    }

    /** Writes {@code text} into the body as it is, e.g. {@code "data: not json\n\n"}. */
    public Script raw(String text) {
        return add(new Raw(text));
    }

    public Script truncate() {
        return add(new Truncate());
    }

    public Script streamError(String type, String message) {
        return add(new StreamError(type, message));
    }

    /** For an error script: answer this many requests with it before moving on. */
    public Script times(int count) {
        this.times = Math.max(1, count);
        return this;
    }

    /** For an error script: an extra response header. */
    public Script header(String name, String value) {
        requireError().headers().put(name, value);
        return this;
    }

    /** For an error script: a {@code Retry-After} header in seconds. */
    public Script retryAfter(long seconds) {
        return header("Retry-After", Long.toString(seconds));
    }

    private Script add(Step step) {
        if (error != null) {
            throw new IllegalStateException("an error script has no reply steps");
        }
        steps.add(step);
        return this;
    }

    private HttpError requireError() {
        if (error == null) {
            throw new IllegalStateException("not an error script");
        }
        return error;
    }

    public List<Step> steps() {
        return Collections.unmodifiableList(steps);
    }

    /** The error to answer with, or null for a reply. */
    public HttpError error() {
        return error;
    }

    public int times() {
        return times;
    }

    /** The finish reason the script asks for, or the natural one: {@code tool_calls} if it calls tools, else {@code stop}. */
    public String finishReason() {
        String reason = null;
        boolean callsTools = false;
        for (Step step : steps) {
            if (step instanceof Finish finish) {
                reason = finish.reason();
            } else if (step instanceof ToolCall) {
                callsTools = true;
            }
        }
        return reason != null ? reason : callsTools ? "tool_calls" : "stop";
    }

    /** The usage the script asks for, or null. */
    public Usage usage() {
        Usage usage = null;
        for (Step step : steps) {
            if (step instanceof Usage u) {
                usage = u;
            }
        }
        return usage;
    }

    /**
     * Reads a script from JSON: a string (a one-chunk text reply), {@code {"error": {"status": 429, "body": "...",
     * "times": 2, "retryAfter": 1, "headers": {...}}}}, or {@code {"steps": [...]}} with steps {@code {"text": ["a",
     * "b"]}}, {@code {"reasoning": [...]}}, {@code {"toolCall": {"id", "name", "arguments", "pieces"}}},
     * {@code {"finish": "stop"}}, {@code {"usage": {"input": 1, "output": 2}}}, {@code {"delay": 50}},
     * {@code {"pause": 100}}, {@code {"webSearch": {"query", "pages": [{"title", "url", "snippet"}]}}}, {@code {"drop": true}}, {@code {"hang": true}}, {@code {"truncate": true}}, {@code {"raw": "data: x\n\n"}},
     * {@code {"streamError": {"type": "server_error", "message": "..."}}}. A bare array is taken as the steps.
     */
    public static Script fromJson(JsonNode node) {
        if (node.isTextual()) {
            return textReply(node.asText());
        }
        JsonNode error = node.path("error");
        if (error.isObject()) {
            Script script = httpError(error.path("status").asInt(500), error.path("body").isMissingNode() || error.path("body").isNull()
                    ? null : error.path("body").isTextual() ? error.path("body").asText() : error.path("body").toString());
            script.times(error.path("times").asInt(1));
            if (error.has("retryAfter")) {
                script.retryAfter(error.path("retryAfter").asLong());
            }
            error.path("headers").properties().forEach(h -> script.header(h.getKey(), h.getValue().asText()));
            return script;
        }
        Script script = reply();
        for (JsonNode step : node.isArray() ? node : node.path("steps")) {
            if (step.has("text")) {
                script.text(strings(step.get("text")));
            } else if (step.has("reasoning")) {
                script.reasoning(strings(step.get("reasoning")));
            } else if (step.has("toolCall")) {
                JsonNode call = step.get("toolCall");
                JsonNode arguments = call.path("arguments");
                script.toolCall(call.path("id").asText(), call.path("name").asText(),
                        arguments.isTextual() ? arguments.asText() : arguments.isMissingNode() ? "{}" : arguments.toString(),
                        call.path("pieces").asInt(3));
            } else if (step.has("finish")) {
                script.finish(step.get("finish").asText());
            } else if (step.has("usage")) {
                script.usage(step.get("usage").path("input").asInt(), step.get("usage").path("output").asInt());
            } else if (step.has("delay")) {
                script.delay(step.get("delay").asLong());
            } else if (step.has("pause")) {
                script.pause(step.get("pause").asLong());
            } else if (step.has("drop")) {
                script.dropConnection();
            } else if (step.has("webSearch")) {
                JsonNode search = step.get("webSearch");
                List<Page> pages = new ArrayList<>();
                search.path("pages").forEach(page -> pages.add(new Page(page.path("title").asText(), page.path("url").asText(),
                        page.path("snippet").asText())));
                script.webSearch(search.path("query").asText(), pages.toArray(Page[]::new));
            } else if (step.has("hang")) {
                script.hang();
            } else if (step.has("raw")) {
                script.raw(step.get("raw").asText());
            } else if (step.has("truncate")) {
                script.truncate();
            } else if (step.has("streamError")) {
                script.streamError(step.get("streamError").path("type").asText("server_error"),
                        step.get("streamError").path("message").asText("fake model server: stream error"));
            } else {
                throw new IllegalArgumentException("unknown script step: " + step);
            }
        }
        return script;
    }

    private static String[] strings(JsonNode node) {
        if (node.isTextual()) {
            return new String[] {node.asText()};
        }
        List<String> out = new ArrayList<>();
        node.forEach(item -> out.add(item.asText()));
        return out.toArray(String[]::new);
    }

    @Override
    public String toString() {
        return error != null ? "Script[error " + error.status() + " x" + times + "]" : "Script" + steps;
    }
}
