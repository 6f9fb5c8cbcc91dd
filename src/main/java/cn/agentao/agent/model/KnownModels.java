package cn.agentao.agent.model;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What we know without asking anyone: default endpoints and models of well-known providers, context window
 * sizes of well-known models, and which models take a reasoning effort. Everything here can be overridden by
 * configuration; unknown models get {@link #DEFAULT_CONTEXT_WINDOW}.
 */
public final class KnownModels {
    public static final int DEFAULT_CONTEXT_WINDOW = 128_000;
    public static final List<String> STANDARD_EFFORTS = List.of("low", "medium", "high");

    /** Default model per provider id when {@code {PREFIX}_MODEL} is unset. */
    private static final Map<String, String> DEFAULT_MODELS = Map.of(
            "openai", "gpt-4.1-mini",
            "anthropic", "claude-sonnet-4-6",
            "ollama", "qwen3",
            "deepseek", "deepseek-chat");

    /** Default base URL per provider id when {@code {PREFIX}_BASE_URL} is unset. */
    private static final Map<String, String> DEFAULT_BASE_URLS = Map.of(
            "openai", "https://api.openai.com/v1",
            "anthropic", "https://api.anthropic.com/v1",
            "ollama", "http://localhost:11434",
            "deepseek", "https://api.deepseek.com/v1",
            "openrouter", "https://openrouter.ai/api/v1");

    /** Model-name prefixes and their context windows, most specific first. */
    private static final List<Map.Entry<String, Integer>> CONTEXT_WINDOWS = List.of(
            Map.entry("gpt-4.1", 1_047_576),
            Map.entry("gpt-5", 400_000),
            Map.entry("gpt-4o", 128_000),
            Map.entry("gpt-4-turbo", 128_000),
            Map.entry("gpt-3.5-turbo", 16_385),
            Map.entry("o1", 200_000),
            Map.entry("o3", 200_000),
            Map.entry("o4", 200_000),
            Map.entry("claude", 200_000),
            Map.entry("deepseek", 128_000),
            Map.entry("qwen3", 131_072),
            Map.entry("qwen", 131_072),
            Map.entry("gemini", 1_048_576),
            Map.entry("llama3", 131_072),
            Map.entry("kimi", 262_144));

    private KnownModels() {}

    public static String defaultModel(String providerId, ProviderKind kind) {
        String model = DEFAULT_MODELS.get(providerId);
        if (model == null && kind != ProviderKind.OPENAI_COMPATIBLE) {
            model = DEFAULT_MODELS.get(kind.configName());
        }
        return model;
    }

    public static String defaultBaseUrl(String providerId, ProviderKind kind) {
        String url = DEFAULT_BASE_URLS.get(providerId);
        if (url == null && kind != ProviderKind.OPENAI_COMPATIBLE) {
            url = DEFAULT_BASE_URLS.get(kind.configName());
        }
        return url;
    }

    /** The context window of {@code model} (a provider-qualified name such as {@code openai/gpt-4o} also works). */
    public static int contextWindow(String model) {
        String name = baseName(model);
        for (Map.Entry<String, Integer> entry : CONTEXT_WINDOWS) {
            if (name.startsWith(entry.getKey())) {
                return entry.getValue();
            }
        }
        return DEFAULT_CONTEXT_WINDOW;
    }

    /** The reasoning efforts {@code model} accepts on {@code kind}, or an empty list. */
    public static List<String> reasoningEfforts(ProviderKind kind, String model) {
        String name = baseName(model);
        boolean reasons = switch (kind) {
            case OPENAI_COMPATIBLE -> name.startsWith("o1") || name.startsWith("o3") || name.startsWith("o4")
                    || name.startsWith("gpt-5");
            case ANTHROPIC -> name.startsWith("claude-opus-4") || name.startsWith("claude-sonnet-4")
                    || name.startsWith("claude-haiku-4") || name.startsWith("claude-3-7");
            case OLLAMA -> false;
        };
        return reasons ? STANDARD_EFFORTS : List.of();
    }

    /**
     * Whether {@code model} is known to accept images in its input: Anthropic's Claude 3 and later, OpenAI's GPT-4o,
     * GPT-4.1, GPT-5, o1/o3/o4, Gemini, and the vision families served by Ollama or OpenAI-compatible servers (llava,
     * qwen-vl, llama3.2-vision, gemma3, pixtral, mistral-small 3.1+). Others, DeepSeek's chat models among them,
     * get text; {@code "images": true} on a model in config.json says otherwise.
     */
    public static boolean acceptsImages(String model) {
        String name = baseName(model);
        for (String prefix : IMAGE_MODELS) {
            if (name.startsWith(prefix)) return !name.startsWith("o1-mini") && !name.startsWith("o3-mini");
        }
        return name.contains("vision") || name.contains("-vl") || name.contains("llava");
    }

    private static final List<String> IMAGE_MODELS = List.of("claude-3", "claude-opus-4", "claude-sonnet-4",
            "claude-haiku-4", "gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-5", "o1", "o3", "o4", "gemini", "gemma3",
            "pixtral", "mistral-small3.1", "mistral-small-3.1", "mistral-medium", "kimi-vl", "qwen2.5vl", "qwen2.5-vl",
            "llama4", "llava", "minicpm-v", "moondream");

    private static String baseName(String model) {
        String name = model.toLowerCase(Locale.ROOT);
        return name.substring(name.lastIndexOf('/') + 1);
    }
}
