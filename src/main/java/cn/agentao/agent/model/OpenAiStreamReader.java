package cn.agentao.agent.model;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The hot path of an OpenAI-compatible chat completion stream: server-sent events read as bytes ({@link SseReader}) and each
 * {@code data:} payload walked with Jackson's streaming parser, straight into the {@link StreamAttempt} (text,
 * reasoning, tool call starts) and into the answer being assembled. Nothing per event is kept: memory follows
 * the answer's text, not the number of events. Behaves as LangChain4j's OpenAI streaming model does (first
 * choice only, {@code reasoning_content} as thinking, tool call pieces joined by index, an id replaced rather than
 * appended, the answer complete at {@code [DONE]}, or at the end of the body once a finish reason came; a body
 * that ends with neither is a cut answer) and reports {@code {"error": ...}}
 * data and {@code event: error} events as provider errors.
 */
final class OpenAiStreamReader {
    private static final JsonFactory JSON = new JsonFactory();
    private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);

    private final StreamAttempt attempt;
    private final StringBuilder text = new StringBuilder();
    private final StringBuilder thinking = new StringBuilder();
    private final Map<Integer, ToolCall> toolCalls = new TreeMap<>();
    private int fallbackToolIndex;
    private FinishReason finishReason;
    private TokenUsage usage;

    /** One tool call being assembled. */
    private static final class ToolCall {
        final StringBuilder id = new StringBuilder();
        final StringBuilder name = new StringBuilder();
        final StringBuilder arguments = new StringBuilder();
    }

    private OpenAiStreamReader(StreamAttempt attempt) {
        this.attempt = attempt;
    }

    /** Reads the whole body, reporting to the attempt; ends with the complete answer (or throws). */
    static void read(InputStream body, StreamAttempt attempt) throws IOException {
        OpenAiStreamReader reader = new OpenAiStreamReader(attempt);
        if (!SseReader.read(body, reader::event, attempt::activity) && reader.finishReason != null) {
            attempt.completed(reader.answer()); // no [DONE], but the choice said it finished: some servers end so
        }
        // otherwise the body ended with neither [DONE] nor a finish reason: the answer was cut (see StreamAttempt.streamEnded)
    }

    /** One event's data; true when the stream is complete. */
    private boolean event(byte[] data, int length, boolean errorEvent) throws IOException {
        if (length == DONE.length && java.util.Arrays.equals(data, 0, length, DONE, 0, DONE.length)) {
            attempt.completed(answer());
            return true;
        }
        attempt.activity();
        if (errorEvent) { // as LangChain4j's OpenAI client: the data is the error (see ModelErrors.failure)
            attempt.failed(new RuntimeException(new String(data, 0, length, StandardCharsets.UTF_8)));
            return false;
        }
        try (JsonParser p = JSON.createParser(data, 0, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) return false; // a JSON value but not a chunk: ignored, as LangChain4j does
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "choices" -> choices(p);
                    case "usage" -> usage(p);
                    case "error" -> {
                        ProviderErrorEvent error = ProviderErrorEvent.parse(new String(data, 0, length, StandardCharsets.UTF_8));
                        if (error != null) attempt.failed(error);
                        p.skipChildren();
                    }
                    default -> p.skipChildren();
                }
            }
        } catch (JsonProcessingException e) {
            throw MalformedStreamException.of(data, length);
        }
        return false;
    }

    private void choices(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        boolean first = true;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (first && p.currentToken() == JsonToken.START_OBJECT) choice(p);
            else p.skipChildren();
            first = false;
        }
    }

    private void choice(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("delta") && value == JsonToken.START_OBJECT) delta(p);
            else if (field.equals("finish_reason") && value == JsonToken.VALUE_STRING) finishReason = finishReason(p.getText());
            else p.skipChildren();
        }
    }

    private void delta(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "content" -> {
                    String s = nonEmptyText(p, value);
                    if (s != null) {
                        text.append(s);
                        attempt.text(s);
                    }
                }
                case "reasoning_content" -> {
                    String s = nonEmptyText(p, value);
                    if (s != null) {
                        thinking.append(s);
                        attempt.reasoning(s);
                    }
                }
                case "tool_calls" -> {
                    if (value == JsonToken.START_ARRAY) {
                        while (p.nextToken() == JsonToken.START_OBJECT) toolCall(p);
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
    }

    private static String nonEmptyText(JsonParser p, JsonToken value) throws IOException {
        if (value != JsonToken.VALUE_STRING) {
            p.skipChildren();
            return null;
        }
        String s = p.getText();
        return s.isEmpty() ? null : s;
    }

    private void toolCall(JsonParser p) throws IOException {
        Integer index = null;
        String id = null, name = null, arguments = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "index" -> index = value == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : null;
                case "id" -> id = value == JsonToken.VALUE_STRING ? p.getText() : null;
                case "function" -> {
                    if (value != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        continue;
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String f = p.currentName();
                        JsonToken v = p.nextToken();
                        if (f.equals("name") && v == JsonToken.VALUE_STRING) name = p.getText();
                        else if (f.equals("arguments") && v == JsonToken.VALUE_STRING) arguments = p.getText();
                        else p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
        int at = index != null ? index : fallbackToolIndex;
        ToolCall call = toolCalls.computeIfAbsent(at, i -> new ToolCall());
        if (index == null && id != null && !call.id.isEmpty() && !call.id.toString().equals(id)) {
            at = ++fallbackToolIndex; // no index and a new id: the next call
            call = toolCalls.computeIfAbsent(at, i -> new ToolCall());
        }
        if (id != null) call.id.setLength(0);
        if (id != null) call.id.append(id);
        if (name != null) call.name.append(name);
        if (arguments != null) call.arguments.append(arguments);
        if (arguments != null && !arguments.isBlank() && call.name.toString().isBlank()) {
            // arguments for a call without a name: refused while the stream is read, as LangChain4j does
            throw new IllegalArgumentException("name cannot be null or blank");
        }
        attempt.toolCallStarted(at, call.id.isEmpty() ? null : call.id.toString(),
                call.name.isEmpty() ? null : call.name.toString());
    }

    private void usage(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        Integer input = null, output = null, total = null, cached = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("prompt_tokens_details") && value == JsonToken.START_OBJECT) {
                cached = cachedTokens(p);
                continue;
            }
            if (value != JsonToken.VALUE_NUMBER_INT) {
                p.skipChildren();
                continue;
            }
            switch (field) {
                case "prompt_tokens" -> input = p.getIntValue();
                case "completion_tokens" -> output = p.getIntValue();
                case "total_tokens" -> total = p.getIntValue();
                default -> { }
            }
        }
        usage = OpenAiTokenUsage.builder().inputTokenCount(input).outputTokenCount(output).totalTokenCount(total)
                .inputTokensDetails(cached == null ? null : OpenAiTokenUsage.InputTokensDetails.builder().cachedTokens(cached).build())
                .build();
    }

    /** {@code prompt_tokens_details.cached_tokens} (the parser is at the object's start; leaves it at its end). */
    private static Integer cachedTokens(JsonParser p) throws IOException {
        Integer cached = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("cached_tokens") && value == JsonToken.VALUE_NUMBER_INT) cached = p.getIntValue();
            else p.skipChildren();
        }
        return cached;
    }

    static FinishReason finishReason(String reason) {
        return switch (reason) {
            case "stop" -> FinishReason.STOP;
            case "length" -> FinishReason.LENGTH;
            case "tool_calls", "function_call" -> FinishReason.TOOL_EXECUTION;
            case "content_filter" -> FinishReason.CONTENT_FILTER;
            default -> null;
        };
    }

    private ChatResponse answer() {
        List<ToolExecutionRequest> calls = new ArrayList<>();
        for (ToolCall c : toolCalls.values()) {
            calls.add(ToolExecutionRequest.builder().id(c.id.toString()).name(c.name.toString())
                    .arguments(c.arguments.toString()).build());
        }
        AiMessage message = AiMessage.builder()
                .text(text.isEmpty() ? null : text.toString())
                .thinking(thinking.isEmpty() ? null : thinking.toString())
                .toolExecutionRequests(calls)
                .build();
        return ChatResponse.builder().aiMessage(message).finishReason(finishReason).tokenUsage(usage).build();
    }
}
