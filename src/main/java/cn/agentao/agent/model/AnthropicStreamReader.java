package cn.agentao.agent.model;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.anthropic.AnthropicTokenUsage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The hot path of an Anthropic Messages stream: server-sent events read as bytes ({@link SseReader}) and each
 * event's data walked with Jackson's streaming parser, straight into the {@link StreamAttempt} (text, thinking,
 * tool use starts) and into the answer being assembled. Nothing per event is kept: memory follows the answer's
 * text, not the number of events. Gives the turn what LangChain4j's Anthropic streaming model gave it: text and
 * thinking blocks joined with a line break, thinking signatures and redacted thinking as the message's
 * {@code thinking_signature} / {@code redacted_thinking} attributes (sent back with the next request), tool use
 * blocks as tool calls numbered in order (arguments from the {@code input_json_delta} pieces, {@code {}} when
 * none), usage with cache reads and writes, the stop reason. The answer is complete at {@code message_stop}; a body
 * that ends before it is a truncated answer (the caller reports the lost connection). {@code error} events fail the
 * call with the provider's error type (e.g. {@code overloaded_error}, retried like HTTP 529 while nothing was shown).
 */
final class AnthropicStreamReader {
    private static final JsonFactory JSON = new JsonFactory();

    private final StreamAttempt attempt;
    private final StringBuilder text = new StringBuilder();
    private final StringBuilder thinking = new StringBuilder();
    private final StringBuilder signatures = new StringBuilder();
    private final List<String> redactedThinking = new ArrayList<>();
    private final Map<Integer, Block> openBlocks = new HashMap<>();
    private final List<ToolCall> toolCalls = new ArrayList<>();
    private int textBlock = -1; // the block the text so far ends with
    private int thinkingBlock = -1; // the block the thinking so far ends with
    private String stopReason;
    private int inputTokens, outputTokens, cacheCreationTokens, cacheReadTokens;

    // The event being walked: its fields may come in any order, so they are collected first.
    private String type;
    private int index;
    private String blockType, id, name, textField, thinkingField, signatureField, dataField, partialJson, stopField;

    /** A content block between its start and stop (a class, not a record: nothing here is bound by Jackson). */
    private static final class Block {
        final String type;
        final ToolCall toolCall;

        Block(String type, ToolCall toolCall) {
            this.type = type;
            this.toolCall = toolCall;
        }
    }

    /** One tool use being assembled; {@code index} counts tool calls only. */
    private static final class ToolCall {
        final int index;
        final String id;
        final String name;
        final StringBuilder arguments = new StringBuilder();

        ToolCall(int index, String id, String name) {
            this.index = index;
            this.id = id;
            this.name = name;
        }
    }

    private AnthropicStreamReader(StreamAttempt attempt) {
        this.attempt = attempt;
    }

    /**
     * Reads the body, reporting to the attempt, up to {@code message_stop} (then the complete answer is reported);
     * returns without an answer when the body ends first.
     */
    static void read(InputStream body, StreamAttempt attempt) throws IOException {
        SseReader.read(body, new AnthropicStreamReader(attempt)::event, attempt::activity);
    }

    /** One event's data; true when the answer is complete. */
    private boolean event(byte[] data, int length, boolean errorEvent) throws IOException {
        attempt.activity();
        if (!startsAnObject(data, length)) { // blank, [DONE] or not JSON: skipped, as LangChain4j does, unless named error
            if (errorEvent) failed(data, length);
            return false;
        }
        type = blockType = id = name = textField = thinkingField = signatureField = dataField = partialJson = stopField = null;
        index = -1;
        try (JsonParser p = JSON.createParser(data, 0, length)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "type" -> type = value == JsonToken.VALUE_STRING ? eventType(p) : null;
                    case "index" -> index = value == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : -1;
                    case "content_block" -> fields(p, value, true);
                    case "delta" -> fields(p, value, false);
                    case "usage" -> usage(p, value);
                    case "message" -> message(p, value);
                    default -> p.skipChildren();
                }
            }
        } catch (JsonProcessingException e) {
            throw MalformedStreamException.of(data, length);
        }
        if (errorEvent || "error".equals(type)) {
            failed(data, length);
            return false;
        }
        if (type == null) return false;
        switch (type) {
            case "content_block_start" -> blockStart();
            case "content_block_delta" -> blockDelta();
            case "content_block_stop" -> openBlocks.remove(index);
            case "message_delta" -> {
                if (stopField != null) stopReason = stopField;
            }
            case "message_stop" -> {
                attempt.completed(answer());
                return true;
            }
            default -> { } // message_start (its usage is taken above), ping, and event types yet to come
        }
        return false;
    }

    /**
     * An error event: {@code {"type":"error","error":{"type":"overloaded_error",...}}} becomes a provider error of
     * that type; anything else fails the call with its text (see ModelErrors.failure).
     */
    private void failed(byte[] data, int length) {
        String text = new String(data, 0, length, StandardCharsets.UTF_8);
        ProviderErrorEvent error = ProviderErrorEvent.parse(text);
        attempt.failed(error != null ? error : new RuntimeException(text));
    }

    private static boolean startsAnObject(byte[] data, int length) {
        for (int i = 0; i < length; i++) {
            byte b = data[i];
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') return b == '{';
        }
        return false;
    }

    private void blockStart() {
        if (blockType == null) return;
        ToolCall call = null;
        if (blockType.equals("tool_use")) {
            call = new ToolCall(toolCalls.size(), id, name);
            toolCalls.add(call);
            attempt.toolCallStarted(call.index, id, name);
        }
        Block block = new Block(blockType, call);
        openBlocks.put(index, block);
        content(block); // a block may start with content of its own
    }

    private void blockDelta() {
        Block block = openBlocks.get(index);
        if (block != null) content(block); // a delta for a block that never started: ignored, as LangChain4j does
    }

    /** What the event at hand brings to {@code block}, by the block's type. */
    private void content(Block block) {
        switch (block.type) {
            case "text" -> {
                if (join(text, textBlock, textField)) {
                    textBlock = index;
                    attempt.text(textField);
                }
            }
            case "thinking" -> {
                if (join(thinking, thinkingBlock, thinkingField)) {
                    thinkingBlock = index;
                    attempt.reasoning(thinkingField);
                }
                join(signatures, -1, signatureField);
            }
            case "redacted_thinking" -> {
                if (dataField != null && !dataField.isEmpty()) redactedThinking.add(dataField);
            }
            case "tool_use" -> {
                if (partialJson != null) block.toolCall.arguments.append(partialJson);
            }
            default -> { } // server tool use and results: not the agent's tools
        }
    }

    /**
     * Appends a non-empty piece from block {@code index}, after a line break when what is there came from another
     * block ({@code lastBlock}; -1: always); false when there was nothing to append.
     */
    private boolean join(StringBuilder to, int lastBlock, String piece) {
        if (piece == null || piece.isEmpty()) return false;
        if ((lastBlock < 0 || index != lastBlock) && !to.isEmpty()) to.append('\n');
        to.append(piece);
        return true;
    }

    private static final String[] EVENT_TYPES = {"content_block_delta", "content_block_start", "content_block_stop",
            "message_start", "message_delta", "message_stop", "ping", "error"};

    /** The event's type, one of the constants above when it is one (no string made per event). */
    private static String eventType(JsonParser p) throws IOException {
        char[] chars = p.getTextCharacters();
        int offset = p.getTextOffset(), length = p.getTextLength();
        for (String known : EVENT_TYPES) {
            if (equals(known, chars, offset, length)) return known;
        }
        return p.getText();
    }

    private static boolean equals(String s, char[] chars, int offset, int length) {
        if (s.length() != length) return false;
        for (int i = 0; i < length; i++) if (s.charAt(i) != chars[offset + i]) return false;
        return true;
    }

    /** The members of {@code content_block} ({@code block}) or {@code delta} this reader uses. */
    private void fields(JsonParser p, JsonToken value, boolean block) throws IOException {
        if (!isObject(p, value)) return;
        for (String field; (field = nextMember(p, JsonToken.VALUE_STRING)) != null; ) {
            switch (field) {
                case "type" -> {
                    if (block) blockType = p.getText(); // a delta's own type is not needed: the block's decides
                }
                case "text" -> textField = p.getText();
                case "thinking" -> thinkingField = p.getText();
                case "partial_json" -> partialJson = p.getText();
                case "signature" -> signatureField = p.getText();
                case "data" -> dataField = p.getText();
                case "id" -> id = p.getText();
                case "name" -> name = p.getText();
                case "stop_reason" -> stopField = p.getText();
                default -> { }
            }
        }
    }

    /** {@code message_start}'s message: only its usage matters here. */
    private void message(JsonParser p, JsonToken value) throws IOException {
        if (!isObject(p, value)) return;
        for (String field; (field = nextMember(p, JsonToken.START_OBJECT)) != null; ) {
            if (field.equals("usage")) usage(p, JsonToken.START_OBJECT);
            else p.skipChildren();
        }
    }

    /** Token counts: each one given replaces the one before (message_delta's are cumulative). */
    private void usage(JsonParser p, JsonToken value) throws IOException {
        if (!isObject(p, value)) return;
        for (String field; (field = nextMember(p, JsonToken.VALUE_NUMBER_INT)) != null; ) {
            switch (field) {
                case "input_tokens" -> inputTokens = p.getIntValue();
                case "output_tokens" -> outputTokens = p.getIntValue();
                case "cache_creation_input_tokens" -> cacheCreationTokens = p.getIntValue();
                case "cache_read_input_tokens" -> cacheReadTokens = p.getIntValue();
                default -> { }
            }
        }
    }

    /** True when the value at hand is an object to walk; anything else is skipped. */
    private static boolean isObject(JsonParser p, JsonToken value) throws IOException {
        if (value == JsonToken.START_OBJECT) return true;
        p.skipChildren();
        return false;
    }

    /** The name of the object's next member whose value is {@code wanted} (others are skipped); null at its end. */
    private static String nextMember(JsonParser p, JsonToken wanted) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            if (p.nextToken() == wanted) return field;
            p.skipChildren();
        }
        return null;
    }

    /**
     * Anthropic's stop reasons. Unlike LangChain4j (which calls it OTHER), a refusal is reported as such, and
     * running out of context window as running out of tokens.
     */
    static FinishReason finishReason(String reason) {
        if (reason == null) return null;
        return switch (reason) {
            case "end_turn", "stop_sequence" -> FinishReason.STOP;
            case "max_tokens", "model_context_window_exceeded" -> FinishReason.LENGTH;
            case "tool_use" -> FinishReason.TOOL_EXECUTION;
            case "refusal" -> FinishReason.CONTENT_FILTER;
            default -> FinishReason.OTHER;
        };
    }

    private ChatResponse answer() {
        List<ToolExecutionRequest> calls = new ArrayList<>(toolCalls.size());
        for (ToolCall c : toolCalls) {
            calls.add(ToolExecutionRequest.builder().id(c.id).name(c.name)
                    .arguments(c.arguments.isEmpty() ? "{}" : c.arguments.toString()).build());
        }
        Map<String, Object> attributes = new HashMap<>();
        if (!signatures.toString().isBlank()) attributes.put("thinking_signature", signatures.toString());
        if (!redactedThinking.isEmpty()) attributes.put("redacted_thinking", List.copyOf(redactedThinking));
        AiMessage message = AiMessage.builder()
                .text(text.isEmpty() ? null : text.toString())
                .thinking(thinking.isEmpty() ? null : thinking.toString())
                .toolExecutionRequests(calls)
                .attributes(attributes)
                .build();
        AnthropicTokenUsage usage = AnthropicTokenUsage.builder().inputTokenCount(inputTokens).outputTokenCount(outputTokens)
                .cacheCreationInputTokens(cacheCreationTokens).cacheReadInputTokens(cacheReadTokens).build();
        return ChatResponse.builder().aiMessage(message).finishReason(finishReason(stopReason)).tokenUsage(usage).build();
    }
}
