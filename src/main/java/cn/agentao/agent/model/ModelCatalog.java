package cn.agentao.agent.model;

import cn.agentao.agent.config.ConfigLocations;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The models a session can use, assembled from the environment, the {@code .env} files and the user's
 * {@code config.json} (see {@code docs/configuration.md}). Building one reads a few small files and nothing
 * else: no network, no HTTP clients. Only providers with everything they need (key, endpoint, a model) are
 * listed; what is missing is explained by {@link #missingConfigurationHelp()}.
 */
public final class ModelCatalog {
    private static final String DEFAULT_PREFIX = "OPENAI";

    private final List<ModelChoice> choices;
    private final Map<String, ResolvedProvider> providers;
    private final Map<String, Integer> contextWindowOverrides;
    /** Per {@code provider/model}, its {@code images} flag from config.json. */
    private final Map<String, Boolean> imageOverrides;
    /** Per provider id, its {@code idleTimeoutSeconds} from config.json. */
    private final Map<String, Duration> idleTimeouts;
    private final ModelChoice defaultChoice;
    private final ModelOptions defaultOptions;
    private final String missingConfigurationHelp;
    private final List<String> warnings;
    private final Set<String> keyVariables;
    private final Map<String, ModelPrice> prices;
    private final List<String> missingVariables;

    private ModelCatalog(Assembly assembly) {
        this.choices = List.copyOf(assembly.choices);
        this.providers = Map.copyOf(assembly.providers);
        this.contextWindowOverrides = Map.copyOf(assembly.contextWindows);
        this.imageOverrides = Map.copyOf(assembly.images);
        this.idleTimeouts = Map.copyOf(assembly.idleTimeouts);
        this.defaultChoice = assembly.defaultChoice;
        this.defaultOptions = assembly.options;
        this.missingConfigurationHelp = assembly.help();
        this.warnings = List.copyOf(assembly.warnings);
        this.keyVariables = Set.copyOf(assembly.keyVariables);
        this.prices = assembly.userConfig.prices();
        this.missingVariables = List.copyOf(assembly.envMissing);
    }

    /** The catalog for a session in {@code sessionCwd}, from this process's environment and the standard files. */
    public static ModelCatalog load(Path sessionCwd) {
        Map<String, String> environment = System.getenv();
        return load(environment, ConfigLocations.standard(sessionCwd, environment));
    }

    public static ModelCatalog load(Map<String, String> environment, ConfigLocations locations) {
        return load(environment, locations, UserConfigFile.read(locations.userConfigJson()));
    }

    /** As {@link #load(Map, ConfigLocations)}, with the user's {@code config.json} already read. */
    public static ModelCatalog load(Map<String, String> environment, ConfigLocations locations, UserConfigFile userConfig) {
        return from(ConfigEnvironment.load(environment, locations), userConfig, locations);
    }

    public static ModelCatalog from(ConfigEnvironment environment, UserConfigFile userConfig, ConfigLocations locations) {
        return new ModelCatalog(new Assembly(environment, userConfig, locations).run());
    }

    /** Every usable {@code provider/model}, the environment's provider first, then config.json's in file order. */
    public List<ModelChoice> choices() {
        return choices;
    }

    public Optional<ModelChoice> defaultChoice() {
        return Optional.ofNullable(defaultChoice);
    }

    /** Whether there is a model to talk to. */
    public boolean configured() {
        return defaultChoice != null;
    }

    /** Plain sentences naming exactly the variables (or config entries) to set; suitable for an ACP auth method. */
    public String missingConfigurationHelp() {
        return missingConfigurationHelp;
    }

    /** The variables the environment's provider ({@code LLM_PROVIDER}) still needs, e.g. {@code DEEPSEEK_API_KEY}. */
    public List<String> missingVariables() {
        return missingVariables;
    }

    /**
     * Problems found while reading configuration (bad numbers, bad config.json entries, a project {@code .env}'s
     * held-back settings); never contains values.
     */
    public List<String> warnings() {
        return warnings;
    }

    /** The variables the providers read their keys from (set or not), e.g. {@code OPENAI_API_KEY} or an {@code apiKeyEnv}. */
    public Set<String> keyVariables() {
        return keyVariables;
    }

    /** The keys of the usable providers, from whatever source: secrets to keep out of child processes. */
    public Set<String> keys() {
        Set<String> keys = new LinkedHashSet<>();
        providers.values().forEach(p -> {
            if (p.apiKey() != null) keys.add(p.apiKey());
        });
        return keys;
    }

    /** Temperature and max tokens from {@code LLM_TEMPERATURE} / {@code LLM_MAX_TOKENS}, default timeouts and retries. */
    public ModelOptions defaultOptions() {
        return defaultOptions;
    }

    /**
     * The choice for a {@code provider/model} value: a listed one, or, when the provider is usable but does not
     * list the model, an ad-hoc choice for it.
     */
    public Optional<ModelChoice> find(String value) {
        if (value == null) {
            return Optional.empty();
        }
        int slash = value.indexOf('/');
        if (slash <= 0 || slash == value.length() - 1) {
            return Optional.empty();
        }
        String providerId = value.substring(0, slash).strip().toLowerCase(Locale.ROOT);
        String model = value.substring(slash + 1).strip();
        for (ModelChoice choice : choices) {
            if (choice.providerId().equals(providerId) && choice.model().equals(model)) {
                return Optional.of(choice);
            }
        }
        ResolvedProvider provider = providers.get(providerId);
        if (provider == null) {
            return Optional.empty();
        }
        return Optional.of(new ModelChoice(providerId, model, model, KnownModels.reasoningEfforts(provider.kind(), model)));
    }

    /** The provider with this id (case-insensitive) or {@link UnknownProviderException}. */
    public ResolvedProvider resolve(String providerId) {
        ResolvedProvider provider = providerId == null ? null : providers.get(providerId.strip().toLowerCase(Locale.ROOT));
        if (provider == null) {
            throw new UnknownProviderException(providerId);
        }
        return provider;
    }

    /** The context window of the choice's model: configured, else known, else {@value KnownModels#DEFAULT_CONTEXT_WINDOW}. */
    public int contextWindow(ModelChoice choice) {
        Integer configured = contextWindowOverrides.get(choice.value());
        return configured != null ? configured : KnownModels.contextWindow(choice.model());
    }

    /** Whether the choice's model accepts images: its {@code images} flag in config.json, else {@link KnownModels#acceptsImages}. */
    public boolean acceptsImages(ModelChoice choice) {
        Boolean configured = imageOverrides.get(choice.value());
        return configured != null ? configured : KnownModels.acceptsImages(choice.model());
    }

    /** The configured price of the choice's model ({@code provider/model} first, then the bare model name), if any. */
    public Optional<ModelPrice> price(ModelChoice choice) {
        ModelPrice p = prices.get(choice.value());
        return Optional.ofNullable(p != null ? p : prices.get(choice.model()));
    }

    /** A client for the choice; cheap: connections are made by its first call. The provider's idle timeout wins. */
    public ModelClient client(ModelChoice choice, ModelOptions options) {
        Duration idle = idleTimeouts.get(choice.providerId());
        return new LangChainModelClient(resolve(choice.providerId()), choice.model(),
                idle != null ? options.withIdleTimeout(idle) : options, acceptsImages(choice));
    }

    public ModelClient client(ModelChoice choice) {
        return client(choice, defaultOptions);
    }

    @Override
    public String toString() {
        return "ModelCatalog[choices=" + choices.stream().map(ModelChoice::value).toList()
                + ", default=" + (defaultChoice == null ? "none" : defaultChoice.value()) + "]";
    }

    /** The one-time work of building a catalog; kept apart so the catalog itself is a plain immutable value. */
    private static final class Assembly {
        private final ConfigEnvironment env;
        private final UserConfigFile userConfig;
        private final ConfigLocations locations;
        private final String prefix;
        private final String envProviderId;

        final List<ModelChoice> choices = new ArrayList<>();
        final Map<String, ResolvedProvider> providers = new LinkedHashMap<>();
        final Map<String, Integer> contextWindows = new LinkedHashMap<>();
        final Map<String, Boolean> images = new LinkedHashMap<>();
        final Map<String, Duration> idleTimeouts = new LinkedHashMap<>();
        final List<String> warnings = new ArrayList<>();
        final List<String> envMissing = new ArrayList<>();
        final List<String> configMissing = new ArrayList<>();
        final Set<String> keyVariables = new LinkedHashSet<>();
        ModelChoice defaultChoice;
        ModelOptions options;

        Assembly(ConfigEnvironment env, UserConfigFile userConfig, ConfigLocations locations) {
            this.env = env;
            this.userConfig = userConfig;
            this.locations = locations;
            this.prefix = env.get("LLM_PROVIDER").map(p -> p.toUpperCase(Locale.ROOT)).orElse(DEFAULT_PREFIX);
            this.envProviderId = prefix.toLowerCase(Locale.ROOT);
        }

        Assembly run() {
            warnings.addAll(userConfig.problems());
            warnings.addAll(env.notices());
            boolean envProviderInFile = userConfig.providers().stream().anyMatch(p -> p.id().equals(envProviderId));
            if (!envProviderInFile) {
                addEnvironmentProvider();
            }
            for (UserConfigFile.ProviderEntry entry : userConfig.providers()) {
                if (!providers.containsKey(entry.id())) {
                    addFileProvider(entry);
                }
            }
            chooseDefault();
            options = ModelOptions.defaults()
                    .withTemperature(number("LLM_TEMPERATURE", Double::valueOf, v -> v >= 0))
                    .withMaxTokens(number("LLM_MAX_TOKENS", Integer::valueOf, v -> v > 0));
            return this;
        }

        private void addEnvironmentProvider() {
            keyVariables.add(prefix + "_API_KEY");
            ConfigEnvironment.Endpoint endpoint = env.endpoint(prefix);
            ProviderKind kind = ProviderKind.forPrefix(prefix);
            if (endpoint.apiFormat() != null) {
                kind = ProviderKind.parse(endpoint.apiFormat()).orElse(null);
                if (kind == null) {
                    warnings.add(prefix + "_API_FORMAT must be openai-completions, anthropic-messages or ollama.");
                    envMissing.add(prefix + "_API_FORMAT");
                    return;
                }
            }
            String baseUrl = endpoint.baseUrl() != null ? endpoint.baseUrl() : KnownModels.defaultBaseUrl(envProviderId, kind);
            String model = env.get(prefix + "_MODEL").orElse(KnownModels.defaultModel(envProviderId, kind));
            if (kind.needsApiKey() && endpoint.apiKey() == null) {
                envMissing.add(prefix + "_API_KEY");
            }
            if (baseUrl == null) {
                envMissing.add(prefix + "_BASE_URL");
            }
            if (model == null) {
                envMissing.add(prefix + "_MODEL");
            }
            if (!envMissing.isEmpty()) {
                return;
            }
            providers.put(envProviderId, new ResolvedProvider(envProviderId, kind, baseUrl, endpoint.apiKey(),
                    endpoint.apiKeyOrigin()));
            choices.add(new ModelChoice(envProviderId, model, model, KnownModels.reasoningEfforts(kind, model)));
        }

        private void addFileProvider(UserConfigFile.ProviderEntry entry) {
            String id = entry.id();
            String variablePrefix = id.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
            String where = "provider '" + id + "' in " + locations.userConfigJson();
            String apiKey = entry.apiKey();
            String apiKeyOrigin = "the apiKey of " + where;
            if (apiKey == null) {
                String keyVariable = entry.apiKeyEnv() != null ? entry.apiKeyEnv() : variablePrefix + "_API_KEY";
                keyVariables.add(keyVariable);
                apiKey = env.get(keyVariable).orElse(null);
                apiKeyOrigin = keyVariable + env.origin(keyVariable).map(o -> " (from " + o + ")").orElse("");
                if (apiKey == null && entry.kind().needsApiKey()) {
                    configMissing.add(where + " needs " + keyVariable + " (or an \"apiKey\").");
                    return;
                }
            }
            String baseUrl = entry.baseUrl() != null ? entry.baseUrl()
                    : env.getFromUser(variablePrefix + "_BASE_URL").orElse(KnownModels.defaultBaseUrl(id, entry.kind()));
            if (baseUrl == null) {
                configMissing.add(where + " needs a \"baseUrl\".");
                return;
            }
            List<UserConfigFile.ModelEntry> models = new ArrayList<>(entry.models());
            Optional<String> envModel = id.equals(envProviderId) ? env.get(prefix + "_MODEL") : Optional.empty();
            if (envModel.isPresent() && models.stream().noneMatch(m -> m.id().equals(envModel.get()))) {
                models.add(0, new UserConfigFile.ModelEntry(envModel.get(), null, null, null));
            }
            if (models.isEmpty()) {
                String fallback = KnownModels.defaultModel(id, entry.kind());
                if (fallback == null) {
                    configMissing.add(where + " needs \"models\".");
                    return;
                }
                models.add(new UserConfigFile.ModelEntry(fallback, null, null, null));
            }
            providers.put(id, new ResolvedProvider(id, entry.kind(), baseUrl, apiKey, apiKeyOrigin));
            if (entry.idleTimeoutSeconds() != null) idleTimeouts.put(id, Duration.ofSeconds(entry.idleTimeoutSeconds()));
            for (UserConfigFile.ModelEntry model : models) {
                List<String> efforts = model.reasoningEfforts() != null ? model.reasoningEfforts()
                        : !entry.reasoningEfforts().isEmpty() ? entry.reasoningEfforts()
                        : KnownModels.reasoningEfforts(entry.kind(), model.id());
                ModelChoice choice = new ModelChoice(id, model.id(),
                        model.displayName() != null ? model.displayName() : model.id(), efforts);
                choices.add(choice);
                Integer window = model.contextWindow() != null ? model.contextWindow() : entry.contextWindow();
                if (window != null) {
                    contextWindows.put(choice.value(), window);
                }
                if (model.images() != null) images.put(choice.value(), model.images());
            }
        }

        private void chooseDefault() {
            boolean selectedByEnvironment = env.get("LLM_PROVIDER").isPresent() || env.get(prefix + "_MODEL").isPresent();
            if (selectedByEnvironment && providers.containsKey(envProviderId)) {
                String model = env.get(prefix + "_MODEL").orElse(null);
                defaultChoice = choices.stream()
                        .filter(c -> c.providerId().equals(envProviderId) && (model == null || c.model().equals(model)))
                        .findFirst().orElse(null);
                return;
            }
            if (selectedByEnvironment && !choices.isEmpty()) {
                warnings.add("LLM_PROVIDER=" + prefix + " is not fully configured; using "
                        + (userConfig.defaultValue() != null ? "config.json's default" : "the first configured model") + ".");
            }
            String configured = userConfig.defaultValue();
            if (configured != null) {
                defaultChoice = findOrAdd(configured);
                if (defaultChoice == null) {
                    warnings.add("\"default\" in " + locations.userConfigJson() + " names no configured provider/model.");
                }
            }
            if (defaultChoice == null && !choices.isEmpty()) {
                defaultChoice = choices.get(0);
            }
        }

        private ModelChoice findOrAdd(String value) {
            int slash = value.indexOf('/');
            if (slash <= 0 || slash == value.length() - 1) {
                return null;
            }
            String providerId = value.substring(0, slash).strip().toLowerCase(Locale.ROOT);
            String model = value.substring(slash + 1).strip();
            ResolvedProvider provider = providers.get(providerId);
            if (provider == null) {
                return null;
            }
            for (ModelChoice choice : choices) {
                if (choice.providerId().equals(providerId) && choice.model().equals(model)) {
                    return choice;
                }
            }
            ModelChoice added = new ModelChoice(providerId, model, model, KnownModels.reasoningEfforts(provider.kind(), model));
            choices.add(added);
            return added;
        }

        private <T extends Number> T number(String name, Function<String, T> parse, Predicate<T> valid) {
            Optional<String> text = env.get(name);
            if (text.isEmpty()) {
                return null;
            }
            try {
                T value = parse.apply(text.get());
                if (valid.test(value)) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            warnings.add(name + " is not a valid number; it was ignored.");
            return null;
        }

        String help() {
            String places = "in the environment"
                    + (locations.projectDotEnv() != null && locations.projectTrusted() ? ", in " + locations.projectDotEnv() : "")
                    + " or in " + locations.userDotEnv();
            StringBuilder help = new StringBuilder();
            if (defaultChoice == null) {
                help.append("No language model is configured.\n");
                env.notices().forEach(n -> help.append(n).append('\n')); // e.g. a key held back in an untrusted project
            }
            if (!envMissing.isEmpty()) {
                help.append("To use ").append(prefix).append(", set ").append(String.join(" and ", envMissing))
                        .append(' ').append(places).append('.');
                List<String> optional = new ArrayList<>();
                for (String suffix : List.of("_BASE_URL", "_MODEL")) {
                    if (!envMissing.contains(prefix + suffix)) {
                        optional.add(prefix + suffix);
                    }
                }
                if (!optional.isEmpty()) {
                    help.append(' ').append(String.join(" and ", optional)).append(" are optional.");
                }
                help.append('\n');
            }
            configMissing.forEach(line -> help.append("The ").append(line).append('\n'));
            help.append("Other providers: set LLM_PROVIDER=ANTHROPIC with ANTHROPIC_API_KEY; LLM_PROVIDER=OLLAMA for a local "
                    + "Ollama server (no key; OLLAMA_BASE_URL defaults to http://localhost:11434); or LLM_PROVIDER=NAME "
                    + "for any OpenAI-compatible server with NAME_API_KEY, NAME_BASE_URL and NAME_MODEL.\n");
            help.append("Several providers and models can be listed in ").append(locations.userConfigJson())
                    .append(" (see docs/configuration.md).");
            return help.toString();
        }
    }
}
