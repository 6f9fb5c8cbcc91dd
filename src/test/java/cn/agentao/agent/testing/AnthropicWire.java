package cn.agentao.agent.testing;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Anthropic Messages: {@code message_start}, {@code content_block_start/delta/stop} for text, thinking and
 * tool_use blocks, {@code message_delta} with the stop reason and usage, {@code message_stop}; or one message.
 */
final class AnthropicWire implements Wire {
    private static final AtomicLong IDS = new AtomicLong();

    @Override
    public StreamEmitter streamer(SseOutput out, RecordedRequest request) {
        return new Streamer(out, request);
    }

    /** OpenAI's finish reasons in Anthropic's words; anything else is passed through. */
    static String stopReason(String finishReason) {
        return switch (finishReason) {
            case "stop" -> "end_turn";
            case "tool_calls" -> "tool_use";
            case "length" -> "max_tokens";
            case "content_filter" -> "refusal";
            default -> finishReason;
        };
    }

    private static final class Streamer implements StreamEmitter {
        private final SseOutput out;
        private final RecordedRequest request;
        private int blockIndex = -1;
        private String blockType;
        private int blockToolIndex = -1;

        Streamer(SseOutput out, RecordedRequest request) {
            this.out = out;
            this.request = request;
        }

        @Override
        public void begin(int inputTokens) throws IOException {
            ObjectNode start = Json.object().put("type", "message_start");
            ObjectNode message = start.putObject("message");
            message.put("id", "msg_fake_" + IDS.incrementAndGet()).put("type", "message").put("role", "assistant")
                    .put("model", request.model());
            message.putArray("content");
            message.putNull("stop_reason").putNull("stop_sequence");
            message.putObject("usage").put("input_tokens", inputTokens).put("output_tokens", 1);
            out.send("message_start", start.toString());
            out.send("ping", "{\"type\": \"ping\"}");
        }

        @Override
        public void text(String chunk) throws IOException {
            if (!"text".equals(blockType)) {
                startBlock("text", Json.object().put("type", "text").put("text", ""));
            }
            delta(Json.object().put("type", "text_delta").put("text", chunk));
        }

        @Override
        public void reasoning(String chunk) throws IOException {
            if (!"thinking".equals(blockType)) {
                startBlock("thinking", Json.object().put("type", "thinking").put("thinking", ""));
            }
            delta(Json.object().put("type", "thinking_delta").put("thinking", chunk));
        }

        @Override
        public void toolCallBegin(int index, String id, String name) throws IOException {
            ObjectNode block = Json.object().put("type", "tool_use").put("id", id).put("name", name);
            block.putObject("input");
            startBlock("tool_use", block);
            blockToolIndex = index;
        }

        @Override
        public void toolCallArguments(int index, String piece) throws IOException {
            if (index != blockToolIndex) {
                throw new IllegalStateException("arguments for a tool call whose block is closed");
            }
            delta(Json.object().put("type", "input_json_delta").put("partial_json", piece));
        }

        @Override
        public void error(String type, String message) throws IOException {
            ObjectNode error = Json.object().put("type", "error");
            error.putObject("error").put("type", type).put("message", message);
            out.send("error", error.toString());
        }

        @Override
        public void end(String finishReason, int inputTokens, int outputTokens, int cachedInputTokens) throws IOException {
            stopBlock();
            ObjectNode delta = Json.object().put("type", "message_delta");
            delta.putObject("delta").put("stop_reason", stopReason(finishReason)).putNull("stop_sequence");
            ObjectNode usage = delta.putObject("usage").put("output_tokens", outputTokens);
            if (cachedInputTokens > 0) { // cumulative counts, as Anthropic sends them: input_tokens excludes cache reads
                usage.put("input_tokens", inputTokens - cachedInputTokens).put("cache_read_input_tokens", cachedInputTokens);
            }
            out.send("message_delta", delta.toString());
            out.send("message_stop", "{\"type\":\"message_stop\"}");
        }

        private void startBlock(String type, ObjectNode contentBlock) throws IOException {
            stopBlock();
            blockIndex++;
            blockType = type;
            ObjectNode start = Json.object().put("type", "content_block_start").put("index", blockIndex);
            start.set("content_block", contentBlock);
            out.send("content_block_start", start.toString());
        }

        private void stopBlock() throws IOException {
            if (blockType == null) {
                return;
            }
            if (blockType.equals("thinking")) {
                delta(Json.object().put("type", "signature_delta").put("signature", "fake-signature-" + blockIndex));
            }
            out.send("content_block_stop", Json.object().put("type", "content_block_stop").put("index", blockIndex).toString());
            blockType = null;
            blockToolIndex = -1;
        }

        private void delta(ObjectNode delta) throws IOException {
            ObjectNode event = Json.object().put("type", "content_block_delta").put("index", blockIndex);
            event.set("delta", delta);
            out.send("content_block_delta", event.toString());
        }
    }

    @Override
    public String complete(Script script, RecordedRequest request, int inputTokens) {
        ObjectNode message = Json.object();
        message.put("id", "msg_fake_" + IDS.incrementAndGet()).put("type", "message").put("role", "assistant")
                .put("model", request.model());
        ArrayNode content = message.putArray("content");
        int outputTokens = 0;
        for (Script.Step step : script.steps()) {
            switch (step) {
                case Script.Reasoning r -> {
                    content.addObject().put("type", "thinking").put("thinking", String.join("", r.chunks()))
                            .put("signature", "fake-signature");
                    outputTokens += r.chunks().size();
                }
                case Script.Text t -> {
                    content.addObject().put("type", "text").put("text", String.join("", t.chunks()));
                    outputTokens += t.chunks().size();
                }
                case Script.ToolCall call -> {
                    ObjectNode block = content.addObject().put("type", "tool_use").put("id", call.id()).put("name", call.name());
                    try {
                        block.set("input", Json.mapper().readTree(call.arguments()));
                    } catch (IOException e) {
                        throw new IllegalArgumentException("tool call arguments must be JSON: " + call.arguments(), e);
                    }
                    outputTokens += call.pieces();
                }
                case Script.WebSearch search -> {
                    String id = "srvtoolu_fake_" + IDS.incrementAndGet();
                    content.addObject().put("type", "server_tool_use").put("id", id).put("name", "web_search")
                            .putObject("input").put("query", search.query());
                    ObjectNode result = content.addObject().put("type", "web_search_tool_result").put("tool_use_id", id);
                    ArrayNode found = result.putArray("content");
                    for (Script.Page page : search.pages()) {
                        found.addObject().put("type", "web_search_result").put("url", page.url()).put("title", page.title())
                                .put("encrypted_content", "ZmFrZQ==").put("page_age", "April 1, 2026");
                    }
                    for (Script.Page page : search.pages()) {
                        ObjectNode text = content.addObject().put("type", "text").put("text", page.snippet());
                        text.putArray("citations").addObject().put("type", "web_search_result_location").put("url", page.url())
                                .put("title", page.title()).put("encrypted_index", "ZmFrZQ==").put("cited_text", page.snippet());
                    }
                    outputTokens += search.pages().size();
                }
                default -> {}
            }
        }
        message.put("stop_reason", stopReason(script.finishReason())).putNull("stop_sequence");
        Script.Usage usage = script.usage();
        message.putObject("usage").put("input_tokens", usage != null ? usage.input() : inputTokens)
                .put("output_tokens", usage != null ? usage.output() : outputTokens);
        return message.toString();
    }

    @Override
    public String errorBody(int status) {
        String type = switch (status) {
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 429 -> "rate_limit_error";
            case 529 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
        ObjectNode error = Json.object().put("type", "error");
        error.putObject("error").put("type", type).put("message", "fake model server: HTTP " + status);
        return error.toString();
    }
}
