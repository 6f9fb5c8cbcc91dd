package cn.agentao.agent.testing;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.concurrent.atomic.AtomicLong;

/**
 * OpenAI's Responses API ({@code POST …/responses}), not streamed: a {@link Script.WebSearch} step becomes a
 * {@code web_search_call} item (its {@code action.sources}) and a {@code message} whose {@code output_text} cites each
 * page with a {@code url_citation} annotation over the page's snippet; text steps add to that text.
 */
final class ResponsesWire implements Wire {
    private static final AtomicLong IDS = new AtomicLong();

    @Override
    public StreamEmitter streamer(SseOutput out, RecordedRequest request) {
        throw new UnsupportedOperationException("fake model server: the Responses API is answered without streaming only");
    }

    @Override
    public String complete(Script script, RecordedRequest request, int inputTokens) {
        ObjectNode response = Json.object().put("id", "resp_fake_" + IDS.incrementAndGet()).put("object", "response")
                .put("created_at", System.currentTimeMillis() / 1000).put("status", "completed").put("model", request.model());
        ArrayNode output = response.putArray("output");
        StringBuilder text = new StringBuilder();
        ArrayNode annotations = Json.mapper().createArrayNode();
        int outputTokens = 0;
        for (Script.Step step : script.steps()) {
            switch (step) {
                case Script.Text t -> {
                    t.chunks().forEach(text::append);
                    outputTokens += t.chunks().size();
                }
                case Script.WebSearch search -> {
                    ObjectNode call = output.addObject().put("type", "web_search_call").put("id", "ws_fake_" + IDS.incrementAndGet())
                            .put("status", "completed");
                    ObjectNode action = call.putObject("action").put("type", "search").put("query", search.query());
                    ArrayNode sources = action.putArray("sources");
                    for (Script.Page page : search.pages()) {
                        sources.addObject().put("type", "url").put("url", page.url());
                        if (!text.isEmpty()) text.append("\n");
                        int start = text.length();
                        text.append(page.snippet());
                        annotations.addObject().put("type", "url_citation").put("start_index", start).put("end_index", text.length())
                                .put("url", page.url()).put("title", page.title());
                    }
                    outputTokens += search.pages().size();
                }
                default -> {}
            }
        }
        ObjectNode message = output.addObject().put("type", "message").put("id", "msg_fake_" + IDS.incrementAndGet())
                .put("status", "completed").put("role", "assistant");
        ObjectNode part = message.putArray("content").addObject().put("type", "output_text").put("text", text.toString());
        part.set("annotations", annotations);
        Script.Usage usage = script.usage();
        int in = usage != null ? usage.input() : inputTokens;
        int out = usage != null ? usage.output() : outputTokens;
        response.putObject("usage").put("input_tokens", in).put("output_tokens", out).put("total_tokens", in + out);
        return response.toString();
    }

    @Override
    public String errorBody(int status) {
        return new OpenAiWire().errorBody(status);
    }
}
