package cn.agentao.agent.model;

import java.util.Locale;
import java.util.Optional;

/** The wire protocol spoken to a provider's endpoint. */
public enum ProviderKind {
    /** OpenAI Chat Completions: OpenAI, DeepSeek, Qwen, vLLM, LM Studio, OpenRouter and most gateways. */
    OPENAI_COMPATIBLE("openai", true),
    /** Anthropic Messages API. */
    ANTHROPIC("anthropic", true),
    /** Ollama's native chat API; needs no key. */
    OLLAMA("ollama", false);

    private final String configName;
    private final boolean needsApiKey;

    ProviderKind(String configName, boolean needsApiKey) {
        this.configName = configName;
        this.needsApiKey = needsApiKey;
    }

    /** The spelling used by {@code "kind"} in config.json. */
    public String configName() {
        return configName;
    }

    public boolean needsApiKey() {
        return needsApiKey;
    }

    /** The kind an {@code LLM_PROVIDER} prefix implies: ANTHROPIC and OLLAMA are native, anything else OpenAI-compatible. */
    public static ProviderKind forPrefix(String prefix) {
        return switch (prefix.toUpperCase(Locale.ROOT)) {
            case "ANTHROPIC" -> ANTHROPIC;
            case "OLLAMA" -> OLLAMA;
            default -> OPENAI_COMPATIBLE;
        };
    }

    /**
     * Parses a config.json {@code kind} or an Agentao {@code {PREFIX}_API_FORMAT} value
     * ({@code openai-completions}, {@code anthropic-messages}).
     */
    public static Optional<ProviderKind> parse(String value) {
        if (value == null) {
            return Optional.empty();
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "openai", "openai-compatible", "openai-completions" -> Optional.of(OPENAI_COMPATIBLE);
            case "anthropic", "anthropic-messages" -> Optional.of(ANTHROPIC);
            case "ollama" -> Optional.of(OLLAMA);
            default -> Optional.empty();
        };
    }
}
