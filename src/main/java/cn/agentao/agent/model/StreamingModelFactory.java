package cn.agentao.agent.model;

import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.ollama.OllamaStreamingChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.util.Locale;

/**
 * Builds the LangChain4j streaming model for one attempt of a call. Building is cheap (no connections: those
 * belong to the shared JDK client behind {@code http}), which lets every attempt carry its own cancellable
 * transport.
 */
final class StreamingModelFactory {
    /** Anthropic needs {@code max_tokens}; used when {@code LLM_MAX_TOKENS} is unset. */
    static final int ANTHROPIC_DEFAULT_MAX_TOKENS = 16_384;

    private final ResolvedProvider provider;
    private final String model;
    private final ModelOptions options;

    StreamingModelFactory(ResolvedProvider provider, String model, ModelOptions options) {
        this.provider = provider;
        this.model = model;
        this.options = options;
    }

    StreamingChatModel create(HttpClientBuilder http, String reasoningEffort) {
        return switch (provider.kind()) {
            case OPENAI_COMPATIBLE -> openAi(http, reasoningEffort);
            case ANTHROPIC -> anthropic(http, reasoningEffort);
            case OLLAMA -> ollama(http, reasoningEffort);
        };
    }

    private StreamingChatModel openAi(HttpClientBuilder http, String reasoningEffort) {
        var builder = OpenAiStreamingChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(provider.baseUrl())
                .apiKey(provider.apiKey())
                .modelName(model)
                .temperature(options.temperature())
                .reasoningEffort(reasoningEffort)
                // DeepSeek-style reasoning_content deltas become thinking.
                .returnThinking(true)
                // Ids are not split across chunks; some compatible servers repeat them in every chunk.
                .accumulateToolCallId(false);
        if (usesMaxCompletionTokens(model)) {
            builder.maxCompletionTokens(options.maxTokens());
        } else {
            builder.maxTokens(options.maxTokens());
        }
        return builder.build();
    }

    private StreamingChatModel anthropic(HttpClientBuilder http, String reasoningEffort) {
        int maxTokens = options.maxTokens() != null ? options.maxTokens() : ANTHROPIC_DEFAULT_MAX_TOKENS;
        var builder = AnthropicStreamingChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(anthropicBaseUrl(provider.baseUrl()))
                .apiKey(provider.apiKey())
                .modelName(model)
                .returnThinking(true)
                .sendThinking(true)
                .cacheSystemMessages(true)
                .cacheTools(true);
        Integer budget = anthropicThinkingBudget(reasoningEffort);
        if (budget != null) {
            // Extended thinking: max_tokens must exceed the budget, and temperature must stay unset.
            builder.thinkingType("enabled").thinkingBudgetTokens(budget).maxTokens(Math.max(maxTokens, budget + 4096));
        } else {
            builder.maxTokens(maxTokens).temperature(options.temperature());
        }
        return builder.build();
    }

    private StreamingChatModel ollama(HttpClientBuilder http, String reasoningEffort) {
        return OllamaStreamingChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(ollamaBaseUrl(provider.baseUrl()))
                .modelName(model)
                .temperature(options.temperature())
                .numPredict(options.maxTokens())
                .think(reasoningEffort == null ? null : !isOff(reasoningEffort))
                .returnThinking(true)
                .build();
    }

    /** OpenAI's reasoning models reject {@code max_tokens}; everyone else may not know {@code max_completion_tokens}. */
    static boolean usesMaxCompletionTokens(String model) {
        return !KnownModels.reasoningEfforts(ProviderKind.OPENAI_COMPATIBLE, model).isEmpty();
    }

    /** Thinking budget per effort; null means no extended thinking. */
    static Integer anthropicThinkingBudget(String reasoningEffort) {
        if (reasoningEffort == null) {
            return null;
        }
        return switch (reasoningEffort.toLowerCase(Locale.ROOT)) {
            case "minimal", "low" -> 2_048;
            case "high" -> 24_576;
            case "none", "off" -> null;
            default -> 8_192;
        };
    }

    private static boolean isOff(String reasoningEffort) {
        String effort = reasoningEffort.toLowerCase(Locale.ROOT);
        return effort.equals("none") || effort.equals("off");
    }

    /**
     * Agentao (through Anthropic's SDK) takes the base URL without {@code /v1}; LangChain4j wants it with.
     * Both spellings work here.
     */
    static String anthropicBaseUrl(String baseUrl) {
        String trimmed = stripTrailingSlash(baseUrl);
        return trimmed.endsWith("/v1") ? trimmed : trimmed + "/v1";
    }

    /** Agentao users reach Ollama through its OpenAI-compatible {@code /v1}; the native API lives at the root. */
    static String ollamaBaseUrl(String baseUrl) {
        String trimmed = stripTrailingSlash(baseUrl);
        return trimmed.endsWith("/v1") ? trimmed.substring(0, trimmed.length() - 3) : trimmed;
    }

    private static String stripTrailingSlash(String url) {
        String out = url.strip();
        while (out.endsWith("/")) {
            out = out.substring(0, out.length() - 1);
        }
        return out;
    }
}
