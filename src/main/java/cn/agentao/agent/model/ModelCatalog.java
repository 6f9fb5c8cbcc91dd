package cn.agentao.agent.model;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Stand-in catalog from LLM_PROVIDER and {PREFIX}_* variables (replaced by the full provider layer). */
public final class ModelCatalog {
    private final List<ModelChoice> choices;
    private final String prefix;

    private ModelCatalog(String prefix, List<ModelChoice> choices) {
        this.prefix = prefix;
        this.choices = choices;
    }

    public static ModelCatalog load(Map<String, String> env, Path cwd, Path configDir) {
        String prefix = env.getOrDefault("LLM_PROVIDER", "OPENAI").toUpperCase(Locale.ROOT);
        String key = env.get(prefix + "_API_KEY");
        if ((key == null || key.isBlank()) && !prefix.equals("OLLAMA")) return new ModelCatalog(prefix, List.of());
        String model = env.getOrDefault(prefix + "_MODEL", "gpt-4o-mini");
        String provider = prefix.toLowerCase(Locale.ROOT);
        return new ModelCatalog(prefix, List.of(new ModelChoice(provider, model, model, false)));
    }

    public List<ModelChoice> choices() { return choices; }

    public Optional<ModelChoice> defaultChoice() { return choices.stream().findFirst(); }

    public boolean configured() { return !choices.isEmpty(); }

    public String missingConfigurationHelp() {
        return "Set " + prefix + "_API_KEY (and optionally " + prefix + "_MODEL, " + prefix
                + "_BASE_URL) in the environment or a .env file; LLM_PROVIDER picks the provider prefix (default OPENAI).";
    }

    public void resolve(String providerId) throws UnknownProviderException {
        if (choices.stream().noneMatch(c -> c.provider().equals(providerId))) throw new UnknownProviderException(providerId);
    }
}
