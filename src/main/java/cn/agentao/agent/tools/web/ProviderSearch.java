package cn.agentao.agent.tools.web;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The model provider's own web search, as {@code web_search} uses it: one small request of its own (not part of the
 * conversation) to the provider the user configured, with the provider's hosted search tool, and what it found read
 * back as titles, addresses and snippets. The provider model's prose is dropped: only the pages reach the agent's model.
 * <ul>
 *   <li>OpenAI: Responses API, {@code POST {base}/responses} with {@code tools: [{"type": "web_search"}]}; the pages are
 *       the {@code url_citation} annotations of the answer (the cited span is the snippet), then the
 *       {@code web_search_call}'s {@code action.sources} not cited.</li>
 *   <li>Anthropic: Messages API, {@code POST {base}/messages} with the server tool {@code web_search_20250305} and
 *       {@code max_uses: 1}; the pages are the {@code web_search_result}s of the {@code web_search_tool_result} block,
 *       snippets the {@code cited_text} of the answer's {@code web_search_result_location} citations.</li>
 * </ul>
 */
final class ProviderSearch {
    static final String ANTHROPIC_VERSION = "2023-06-01";
    static final String ANTHROPIC_TOOL = "web_search_20250305";
    static final int ANTHROPIC_MAX_TOKENS = 1024;

    private ProviderSearch() {}

    /** What the provider found, or why it found nothing. */
    record Found(List<WebSearchTool.Result> results, String error) {}

    /** The request's address under the provider's base URL. */
    static String path(WebSearchConfig.Backend backend) {
        return backend == WebSearchConfig.Backend.OPENAI ? "/responses" : "/messages";
    }

    private static String prompt(String query, int count) {
        return "Search the web for the query below and list the " + count + " most relevant pages you find, each with a "
                + "citation. Do not answer from memory.\nQuery: " + query;
    }

    /** The request body: one search for {@code query}. */
    static String body(WebSearchConfig.Backend backend, String model, String query, int count) {
        ObjectNode body = Json.object().put("model", model);
        if (backend == WebSearchConfig.Backend.OPENAI) {
            body.put("input", prompt(query, count));
            body.putArray("tools").addObject().put("type", "web_search");
            body.putArray("include").add("web_search_call.action.sources");
            body.put("max_tool_calls", 1).put("store", false);
        } else {
            body.put("max_tokens", ANTHROPIC_MAX_TOKENS);
            body.putArray("messages").addObject().put("role", "user").put("content", prompt(query, count));
            body.putArray("tools").addObject().put("type", ANTHROPIC_TOOL).put("name", "web_search").put("max_uses", 1);
        }
        return body.toString();
    }

    /** The pages of the provider's answer {@code root}, raw (the caller cleans and bounds them). */
    static Found read(WebSearchConfig.Backend backend, JsonNode root) {
        return backend == WebSearchConfig.Backend.OPENAI ? openAi(root) : anthropic(root);
    }

    private static Found openAi(JsonNode root) {
        Map<String, WebSearchTool.Result> pages = new LinkedHashMap<>();
        List<String> sources = new ArrayList<>();
        for (JsonNode item : root.path("output")) {
            switch (item.path("type").asText("")) {
                case "web_search_call" -> {
                    for (JsonNode source : item.path("action").path("sources")) sources.add(source.path("url").asText(""));
                }
                case "message" -> {
                    for (JsonNode part : item.path("content")) {
                        if (!"output_text".equals(part.path("type").asText())) continue;
                        String text = part.path("text").asText("");
                        for (JsonNode a : part.path("annotations")) {
                            if (!"url_citation".equals(a.path("type").asText())) continue;
                            String url = a.path("url").asText("");
                            pages.putIfAbsent(url, new WebSearchTool.Result(a.path("title").asText(""), url,
                                    span(text, a.path("start_index").asInt(-1), a.path("end_index").asInt(-1))));
                        }
                    }
                }
                default -> {}
            }
        }
        for (String url : sources) pages.putIfAbsent(url, new WebSearchTool.Result("", url, ""));
        if (pages.isEmpty() && "failed".equals(root.path("status").asText())) {
            return new Found(List.of(), "the provider's search failed: " + root.path("error").path("message").asText("no reason given"));
        }
        return new Found(List.copyOf(pages.values()), null);
    }

    private static Found anthropic(JsonNode root) {
        Map<String, String> cited = new LinkedHashMap<>();
        for (JsonNode block : root.path("content")) {
            if (!"text".equals(block.path("type").asText())) continue;
            for (JsonNode c : block.path("citations")) {
                if ("web_search_result_location".equals(c.path("type").asText())) {
                    cited.putIfAbsent(c.path("url").asText(""), c.path("cited_text").asText(""));
                }
            }
        }
        Map<String, WebSearchTool.Result> pages = new LinkedHashMap<>();
        for (JsonNode block : root.path("content")) {
            if (!"web_search_tool_result".equals(block.path("type").asText())) continue;
            JsonNode content = block.path("content");
            if (content.isObject()) { // web_search_tool_result_error
                return new Found(List.of(), "the provider's search failed: " + content.path("error_code").asText("unknown error"));
            }
            for (JsonNode r : content) {
                if (!"web_search_result".equals(r.path("type").asText())) continue;
                String url = r.path("url").asText("");
                pages.putIfAbsent(url, new WebSearchTool.Result(r.path("title").asText(""), url, cited.getOrDefault(url, "")));
            }
        }
        return new Found(List.copyOf(pages.values()), null);
    }

    /** {@code text}'s characters from {@code start} to {@code end}, or nothing when the span is not in it. */
    private static String span(String text, int start, int end) {
        return start >= 0 && end > start && end <= text.length() ? text.substring(start, end) : "";
    }
}
