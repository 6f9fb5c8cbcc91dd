package cn.agentao.agent.testing;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/** OpenAI Chat Completions: {@code data: {chunk}} lines ending with {@code data: [DONE]}, or one completion object. */
final class OpenAiWire implements Wire {
    private static final AtomicLong IDS = new AtomicLong();

    @Override
    public StreamEmitter streamer(SseOutput out, RecordedRequest request) {
        return new Streamer(out, request);
    }

    private static final class Streamer implements StreamEmitter {
        private final SseOutput out;
        private final RecordedRequest request;
        private final String id = "chatcmpl-fake-" + IDS.incrementAndGet();
        private boolean roleSent;

        Streamer(SseOutput out, RecordedRequest request) {
            this.out = out;
            this.request = request;
        }

        @Override
        public void begin(int inputTokens) {}

        @Override
        public void text(String chunk) throws IOException {
            ObjectNode delta = delta();
            delta.put("content", chunk);
            send(delta, null);
        }

        @Override
        public void reasoning(String chunk) throws IOException {
            ObjectNode delta = delta();
            delta.put("reasoning_content", chunk);
            send(delta, null);
        }

        @Override
        public void toolCallBegin(int index, String id, String name) throws IOException {
            ObjectNode delta = delta();
            ObjectNode call = delta.putArray("tool_calls").addObject();
            call.put("index", index).put("id", id).put("type", "function");
            call.putObject("function").put("name", name).put("arguments", "");
            send(delta, null);
        }

        @Override
        public void toolCallArguments(int index, String piece) throws IOException {
            ObjectNode delta = delta();
            ObjectNode call = delta.putArray("tool_calls").addObject();
            call.put("index", index);
            call.putObject("function").put("arguments", piece);
            send(delta, null);
        }

        @Override
        public void error(String type, String message) throws IOException {
            ObjectNode error = Json.object();
            error.putObject("error").put("message", message).put("type", type);
            out.send(null, error.toString());
        }

        @Override
        public void end(String finishReason, int inputTokens, int outputTokens, int cachedInputTokens) throws IOException {
            send(delta(), finishReason);
            if (request.body().path("stream_options").path("include_usage").asBoolean(false)) {
                ObjectNode chunk = chunk();
                chunk.putArray("choices");
                chunk.set("usage", usage(inputTokens, outputTokens, cachedInputTokens));
                out.send(null, chunk.toString());
            }
            out.send(null, "[DONE]");
        }

        private ObjectNode delta() {
            ObjectNode delta = Json.object();
            if (!roleSent) {
                delta.put("role", "assistant");
                roleSent = true;
            }
            return delta;
        }

        private void send(ObjectNode delta, String finishReason) throws IOException {
            ObjectNode chunk = chunk();
            ObjectNode choice = chunk.putArray("choices").addObject();
            choice.put("index", 0);
            choice.set("delta", delta);
            if (finishReason == null) {
                choice.putNull("finish_reason");
            } else {
                choice.put("finish_reason", finishReason);
            }
            out.send(null, chunk.toString());
        }

        private ObjectNode chunk() {
            ObjectNode chunk = Json.object();
            chunk.put("id", id).put("object", "chat.completion.chunk").put("created", System.currentTimeMillis() / 1000)
                    .put("model", request.model());
            return chunk;
        }
    }

    @Override
    public String complete(Script script, RecordedRequest request, int inputTokens) {
        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        ObjectNode message = Json.object().put("role", "assistant");
        ArrayNode toolCalls = Json.mapper().createArrayNode();
        int outputTokens = 0;
        for (Script.Step step : script.steps()) {
            switch (step) {
                case Script.Text t -> {
                    t.chunks().forEach(text::append);
                    outputTokens += t.chunks().size();
                }
                case Script.Reasoning r -> {
                    r.chunks().forEach(reasoning::append);
                    outputTokens += r.chunks().size();
                }
                case Script.ToolCall call -> {
                    ObjectNode node = toolCalls.addObject().put("id", call.id()).put("type", "function");
                    node.putObject("function").put("name", call.name()).put("arguments", call.arguments());
                    outputTokens += call.pieces();
                }
                default -> {}
            }
        }
        if (text.isEmpty()) {
            message.putNull("content");
        } else {
            message.put("content", text.toString());
        }
        if (!reasoning.isEmpty()) {
            message.put("reasoning_content", reasoning.toString());
        }
        if (!toolCalls.isEmpty()) {
            message.set("tool_calls", toolCalls);
        }
        Script.Usage usage = script.usage();
        ObjectNode completion = Json.object();
        completion.put("id", "chatcmpl-fake-" + IDS.incrementAndGet()).put("object", "chat.completion")
                .put("created", System.currentTimeMillis() / 1000).put("model", request.model());
        ObjectNode choice = completion.putArray("choices").addObject();
        choice.put("index", 0).set("message", message);
        choice.put("finish_reason", script.finishReason());
        completion.set("usage", usage(usage != null ? usage.input() : inputTokens, usage != null ? usage.output() : outputTokens,
                usage != null ? usage.cachedInput() : 0));
        return completion.toString();
    }

    private static ObjectNode usage(int input, int output, int cached) {
        ObjectNode usage = Json.object().put("prompt_tokens", input).put("completion_tokens", output).put("total_tokens", input + output);
        if (cached > 0) usage.putObject("prompt_tokens_details").put("cached_tokens", cached);
        return usage;
    }

    @Override
    public String errorBody(int status) {
        String type = switch (status) {
            case 401 -> "invalid_api_key";
            case 404 -> "model_not_found";
            case 429 -> "rate_limit_exceeded";
            default -> status >= 500 ? "server_error" : "invalid_request_error";
        };
        ObjectNode error = Json.object();
        error.putObject("error").put("message", "fake model server: HTTP " + status).put("type", type).put("code", type);
        return error.toString();
    }
}
