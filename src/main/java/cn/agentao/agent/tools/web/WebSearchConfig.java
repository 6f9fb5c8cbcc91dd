package cn.agentao.agent.tools.web;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.config.ConfigJson;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.model.ModelCatalog;
import cn.agentao.agent.model.ModelChoice;
import cn.agentao.agent.model.ProviderKind;
import cn.agentao.agent.model.ResolvedProvider;
import cn.agentao.agent.model.UserConfigFile;
import cn.agentao.agent.model.UserDotEnvFile;
import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The {@code webSearch} entry of the user's {@code config.json}: which search {@code web_search} asks.
 * <pre>
 * "webSearch": {"backend": "searxng", "baseUrl": "https://search.example.org"}
 * "webSearch": {"backend": "brave", "apiKeyEnv": "BRAVE_API_KEY", "maxResults": 5}
 * "webSearch": {"backend": "tavily", "apiKeyEnv": "TAVILY_API_KEY"}
 * "webSearch": {"backend": "provider", "model": "gpt-4.1-mini"}
 * "webSearch": {"backend": "off"}
 * </pre>
 * A search API named in the file wins. Without an entry (or with one that names no backend), the default model's
 * provider is asked when it is OpenAI's or Anthropic's own API ({@value #OPENAI_HOST}, {@value #ANTHROPIC_HOST});
 * {@code "provider"} asks it whatever its address; {@code "off"} turns web_search off. The key is never in the
 * file: {@code apiKeyEnv} names the variable that holds it, read from the agent's environment or the user's
 * {@code .env} at each search; the provider's key is the one the model requests use.
 *
 * @param backend    the search API
 * @param baseUrl    where it is served (SearXNG: the instance; Brave, Tavily: their API unless set; the provider's base URL)
 * @param apiKeyEnv  the variable holding the key (Brave, Tavily), where the provider's key comes from, or null
 * @param maxResults results per search, 1 to {@value #MAX_RESULTS}
 * @param keys       looks up a variable's value (the environment, then the user's {@code .env})
 * @param model      the model that searches (provider search only), else null
 */
public record WebSearchConfig(Backend backend, URI baseUrl, String apiKeyEnv, int maxResults, UnaryOperator<String> keys,
                              String model) {
    public static final int MAX_RESULTS = 10;
    public static final int DEFAULT_RESULTS = 5;
    public static final String BRAVE_BASE_URL = "https://api.search.brave.com";
    public static final String BRAVE_DEFAULT_KEY_ENV = "BRAVE_API_KEY";
    public static final String TAVILY_BASE_URL = "https://api.tavily.com";
    public static final String TAVILY_DEFAULT_KEY_ENV = "TAVILY_API_KEY";
    /** The hosts whose provider search is used without being asked for in config.json. */
    public static final String OPENAI_HOST = "api.openai.com";
    public static final String ANTHROPIC_HOST = "api.anthropic.com";
    private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** The search APIs {@code web_search} speaks. */
    public enum Backend {
        /** SearXNG's JSON API: {@code GET {base}/search?q=…&format=json} (the instance must enable the json format). */
        SEARXNG,
        /** Brave Search API: {@code GET {base}/res/v1/web/search?q=…&count=N}, key in {@code X-Subscription-Token}. */
        BRAVE,
        /** Tavily: {@code POST {base}/search} with {@code {"query", "max_results"}}, key as a bearer token. */
        TAVILY,
        /** The OpenAI provider's search: {@code POST {base}/responses} with the {@code web_search} tool. */
        OPENAI,
        /** The Anthropic provider's search: {@code POST {base}/v1/messages} with the {@code web_search_20250305} server tool. */
        ANTHROPIC;

        /** Whether the configured model provider searches (a separate small request to it, with its key). */
        public boolean provider() { return this == OPENAI || this == ANTHROPIC; }
    }

    /** The default model and its provider, whose own search {@code web_search} may use. */
    public record DefaultModel(ResolvedProvider provider, String model) {}

    /** What the entry says: a configuration, or none (with the sentence that says why, when the entry is bad). */
    public record Loaded(WebSearchConfig config, String problem) {
        static final Loaded NONE = new Loaded(null, null);
    }

    /** The variable holding the key, or null when the backend needs none. */
    public String keyVariable() { return apiKeyEnv; }

    /** Whether a search of this backend goes to the model provider (and needs no variable of its own). */
    public boolean providerSearch() { return backend.provider(); }

    /** The key, or null when its variable is unset or empty. */
    public String key() {
        if (apiKeyEnv == null) return null;
        String v = keys.apply(apiKeyEnv);
        return v == null || v.isBlank() ? null : v.strip();
    }

    @Override
    public String toString() { // never the key
        return "WebSearchConfig[" + backend + " " + baseUrl + (apiKeyEnv == null ? "" : ", key in " + apiKeyEnv)
                + (model == null ? "" : ", model " + model) + ", maxResults=" + maxResults + "]";
    }

    /** The entry of the user's {@code config.json} in {@code configDir}; keys from {@code env}, then {@code configDir/.env}. */
    public static Loaded load(Path configDir, Map<String, String> env) {
        return load(ConfigJson.read(configDir.resolve(ConfigJson.USER_FILE)), configDir, env, () -> null);
    }

    /**
     * The entry of the process's configuration (its {@code config.json} read once); the provider search is the default
     * model's as the user configured it (environment, the user's {@code .env} and {@code config.json}: never a
     * project's own {@code .env}, so a checked-out project cannot send searches, or the key, elsewhere).
     */
    public static Loaded load(AgentConfig config) {
        return load(config.userJson(), config.configDir(), config.environment(), () -> defaultModel(config));
    }

    private static DefaultModel defaultModel(AgentConfig config) {
        Map<String, String> env = config.environment();
        Path here = Path.of(System.getProperty("user.dir"));
        ModelCatalog catalog = ModelCatalog.load(env, ConfigLocations.standard(here, env, false), UserConfigFile.of(config.userJson()));
        ModelChoice choice = catalog.defaultChoice().orElse(null);
        return choice == null ? null : new DefaultModel(catalog.resolve(choice.providerId()), choice.model());
    }

    private static Loaded load(ConfigJson userJson, Path configDir, Map<String, String> env, Supplier<DefaultModel> provider) {
        JsonNode node = userJson.section("webSearch"); // an unreadable file: the model configuration reports it
        String file = userJson.name();
        UserDotEnvFile dotEnv = new UserDotEnvFile(configDir.resolve(".env"));
        return parse(node, file, name -> {
            String v = env.get(name);
            return v != null && !v.isBlank() ? v : dotEnv.values().get(name);
        }, provider);
    }

    /** Parses a {@code webSearch} entry ({@code where} names the file in problems), without a provider to search with. */
    public static Loaded parse(JsonNode node, String where, UnaryOperator<String> keys) {
        return parse(node, where, keys, () -> null);
    }

    /**
     * Parses a {@code webSearch} entry ({@code where} names the file in problems); {@code provider} gives the default
     * model (or null), asked only when the entry names no search API.
     */
    public static Loaded parse(JsonNode node, String where, UnaryOperator<String> keys, Supplier<DefaultModel> provider) {
        String prefix = where + ": \"webSearch\" ";
        boolean missing = node == null || node.isMissingNode() || node.isNull();
        if (!missing && !node.isObject()) return problem(prefix + "must be an object; web_search is off.");
        String name = missing ? null : text(node.get("backend"));
        if (name != null && name.equalsIgnoreCase("off")) return Loaded.NONE;
        int max = DEFAULT_RESULTS;
        if (!missing && node.has("maxResults")) {
            JsonNode m = node.get("maxResults");
            if (!m.canConvertToInt() || !m.isIntegralNumber() || m.asInt() < 1 || m.asInt() > MAX_RESULTS) {
                return problem(prefix + "\"maxResults\" must be a whole number from 1 to " + MAX_RESULTS + "; web_search is off.");
            }
            max = m.asInt();
        }
        if (name == null || name.equalsIgnoreCase("provider")) {
            if (!missing && node.has("backend") && name == null) return problem(prefix + BACKENDS);
            String model = missing ? null : text(node.get("model"));
            if (!missing && node.has("model") && model == null) return problem(prefix + "\"model\" must name a model; web_search is off.");
            return providerSearch(provider.get(), name != null, model, max, prefix);
        }
        Backend backend;
        try {
            backend = Backend.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            backend = null;
        }
        if (backend == null || backend.provider()) return problem(prefix + BACKENDS);
        String base = text(node.get("baseUrl"));
        if (base == null && backend == Backend.BRAVE) base = BRAVE_BASE_URL;
        if (base == null && backend == Backend.TAVILY) base = TAVILY_BASE_URL;
        if (base == null) return problem(prefix + "needs \"baseUrl\", the SearXNG instance's address; web_search is off.");
        URI uri = address(base);
        if (uri == null) {
            return problem(prefix + "\"baseUrl\" must be an http(s) address without credentials or query; web_search is off.");
        }
        String keyEnv = null;
        if (backend == Backend.BRAVE || backend == Backend.TAVILY) {
            keyEnv = node.has("apiKeyEnv") ? text(node.get("apiKeyEnv"))
                    : backend == Backend.BRAVE ? BRAVE_DEFAULT_KEY_ENV : TAVILY_DEFAULT_KEY_ENV;
            if (keyEnv == null || !VARIABLE_NAME.matcher(keyEnv).matches()) {
                return problem(prefix + "\"apiKeyEnv\" must name an environment variable; web_search is off.");
            }
        }
        return new Loaded(new WebSearchConfig(backend, uri, keyEnv, max, keys, null), null);
    }

    private static final String BACKENDS = "needs \"backend\": \"searxng\", \"brave\", \"tavily\", \"provider\" or \"off\"; web_search is off.";

    /**
     * The provider's own search: used unasked only for OpenAI's and Anthropic's own API, whatever the address when
     * {@code asked} ("backend": "provider"), never for a provider that has none (Ollama).
     */
    private static Loaded providerSearch(DefaultModel def, boolean asked, String model, int max, String prefix) {
        if (def == null || def.provider() == null) {
            return asked ? problem(prefix + "asks for the provider's search, but no model is configured; web_search is off.") : Loaded.NONE;
        }
        ResolvedProvider p = def.provider();
        URI uri = address(p.baseUrl());
        String host = uri == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        Backend backend = switch (p.kind()) {
            case OPENAI_COMPATIBLE -> asked || host.equals(OPENAI_HOST) ? Backend.OPENAI : null;
            case ANTHROPIC -> asked || host.equals(ANTHROPIC_HOST) ? Backend.ANTHROPIC : null;
            case OLLAMA -> null;
        };
        if (backend == null || uri == null) {
            return asked ? problem(prefix + "asks for the provider's search, but the default provider (" + p.id() + ", "
                    + p.kind().configName() + ") has none; web_search is off.") : Loaded.NONE;
        }
        if (p.kind() == ProviderKind.ANTHROPIC && !uri.getPath().endsWith("/v1")) uri = URI.create(uri + "/v1");
        String key = p.apiKey();
        String origin = p.apiKeyOrigin() != null ? p.apiKeyOrigin() : "the key of provider " + p.id();
        return new Loaded(new WebSearchConfig(backend, uri, origin, max, n -> key, model != null ? model : def.model()), null);
    }

    /** {@code base} without a trailing slash, when it is an http(s) address with a host and no query or credentials. */
    private static URI address(String base) {
        if (base == null) return null;
        String trimmed = base.strip();
        while (trimmed.endsWith("/")) trimmed = trimmed.substring(0, trimmed.length() - 1);
        URI uri;
        try {
            uri = new URI(trimmed);
        } catch (URISyntaxException e) {
            return null;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!List.of("http", "https").contains(scheme) || uri.getHost() == null || uri.getRawQuery() != null
                || uri.getRawUserInfo() != null) {
            return null;
        }
        return uri;
    }

    private static Loaded problem(String sentence) {
        return new Loaded(null, sentence);
    }

    private static String text(JsonNode node) {
        return node != null && node.isTextual() && !node.asText().isBlank() ? node.asText().strip() : null;
    }
}
