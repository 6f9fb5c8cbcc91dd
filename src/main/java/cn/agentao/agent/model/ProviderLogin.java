package cn.agentao.agent.model;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What {@code agent login} offers and writes: the known providers (and "other OpenAI-compatible"), and the
 * variables a login sets in the user's {@code .env} ({@code LLM_PROVIDER}, {@code {PREFIX}_API_KEY},
 * {@code {PREFIX}_BASE_URL}, {@code {PREFIX}_MODEL}), read back by {@link ConfigEnvironment} like any other.
 */
public final class ProviderLogin {

    /** A provider the user can pick; {@code prefix} null means "other": the user names it. */
    public record Choice(String label, String prefix, ProviderKind kind) {
        public boolean other() { return prefix == null; }
        public boolean needsKey() { return kind.needsApiKey(); }
        /** The default endpoint, or null when the user must give one. */
        public String defaultBaseUrl() { return prefix == null ? null : KnownModels.defaultBaseUrl(id(), kind); }
        /** The default model, or null when the user must give one. */
        public String defaultModel() { return prefix == null ? null : KnownModels.defaultModel(id(), kind); }
        String id() { return prefix.toLowerCase(Locale.ROOT); }
    }

    public static final List<Choice> CHOICES = List.of(
            new Choice("OpenAI", "OPENAI", ProviderKind.OPENAI_COMPATIBLE),
            new Choice("Anthropic", "ANTHROPIC", ProviderKind.ANTHROPIC),
            new Choice("DeepSeek", "DEEPSEEK", ProviderKind.OPENAI_COMPATIBLE),
            new Choice("OpenRouter", "OPENROUTER", ProviderKind.OPENAI_COMPATIBLE),
            new Choice("Ollama (local, no key)", "OLLAMA", ProviderKind.OLLAMA),
            new Choice("Other OpenAI-compatible server", null, ProviderKind.OPENAI_COMPATIBLE));

    private ProviderLogin() {}

    /** A name the user typed for "other" as an env prefix ({@code my-vllm} → {@code MY_VLLM}), or null if unusable. */
    public static String prefixFor(String name) {
        String p = name == null ? "" : name.strip().toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]+", "_")
                .replaceAll("^_+|_+$", "");
        return p.isEmpty() || Character.isDigit(p.charAt(0)) ? null : p;
    }

    /** The variables a login writes; {@code baseUrl} / {@code model} null when the provider's default is kept. */
    public static Map<String, String> variables(String prefix, String apiKey, String baseUrl, String model) {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("LLM_PROVIDER", prefix);
        if (apiKey != null) v.put(prefix + "_API_KEY", apiKey);
        if (baseUrl != null) v.put(prefix + "_BASE_URL", baseUrl);
        if (model != null) v.put(prefix + "_MODEL", model);
        return v;
    }

    /**
     * Removes what logins wrote: {@code LLM_PROVIDER}, and the key, endpoint and model of the provider it names and
     * of every provider whose key the file holds. Returns the names removed (none when there was nothing).
     */
    public static Set<String> logout(UserDotEnvFile file) throws IOException {
        Map<String, String> values = file.values();
        Set<String> prefixes = new LinkedHashSet<>();
        String chosen = values.get("LLM_PROVIDER");
        if (chosen != null && !chosen.isBlank()) prefixes.add(chosen.strip().toUpperCase(Locale.ROOT));
        values.keySet().stream().filter(k -> k.endsWith("_API_KEY")).forEach(k -> prefixes.add(k.substring(0, k.length() - "_API_KEY".length())));
        Set<String> remove = new LinkedHashSet<>();
        if (values.containsKey("LLM_PROVIDER")) remove.add("LLM_PROVIDER");
        for (String p : prefixes) {
            for (String suffix : List.of("_API_KEY", "_BASE_URL", "_MODEL", "_API_FORMAT")) {
                if (values.containsKey(p + suffix)) remove.add(p + suffix);
            }
        }
        if (!remove.isEmpty()) file.update(Map.of(), remove);
        return remove;
    }
}
