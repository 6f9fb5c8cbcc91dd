package cn.agentao.agent.tools.web;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.config.ConfigJson;
import cn.agentao.agent.model.UserDotEnvFile;
import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The {@code webSearch} entry of the user's {@code config.json}: which search API {@code web_search} asks.
 * <pre>
 * "webSearch": {"backend": "searxng", "baseUrl": "https://search.example.org"}
 * "webSearch": {"backend": "brave", "apiKeyEnv": "BRAVE_API_KEY", "maxResults": 5}
 * </pre>
 * The key is never in the file: {@code apiKeyEnv} names the variable that holds it (default
 * {@value #BRAVE_DEFAULT_KEY_ENV}), read from the agent's environment or the user's {@code .env} at each search.
 *
 * @param backend    the search API
 * @param baseUrl    where it is served (SearXNG: the instance; Brave: {@value #BRAVE_BASE_URL} unless set)
 * @param apiKeyEnv  the variable holding the key (Brave), or null
 * @param maxResults results per search, 1 to {@value #MAX_RESULTS}
 * @param keys       looks up a variable's value (the environment, then the user's {@code .env})
 */
public record WebSearchConfig(Backend backend, URI baseUrl, String apiKeyEnv, int maxResults, UnaryOperator<String> keys) {
    public static final int MAX_RESULTS = 10;
    public static final int DEFAULT_RESULTS = 5;
    public static final String BRAVE_BASE_URL = "https://api.search.brave.com";
    public static final String BRAVE_DEFAULT_KEY_ENV = "BRAVE_API_KEY";
    private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** The search APIs {@code web_search} speaks. */
    public enum Backend {
        /** SearXNG's JSON API: {@code GET {base}/search?q=…&format=json} (the instance must enable the json format). */
        SEARXNG,
        /** Brave Search API: {@code GET {base}/res/v1/web/search?q=…&count=N}, key in {@code X-Subscription-Token}. */
        BRAVE
    }

    /** What the entry says: a configuration, or none (with the sentence that says why, when the entry is bad). */
    public record Loaded(WebSearchConfig config, String problem) {
        static final Loaded NONE = new Loaded(null, null);
    }

    /** The variable holding the key, or null when the backend needs none. */
    public String keyVariable() { return apiKeyEnv; }

    /** The key, or null when its variable is unset or empty. */
    public String key() {
        if (apiKeyEnv == null) return null;
        String v = keys.apply(apiKeyEnv);
        return v == null || v.isBlank() ? null : v.strip();
    }

    @Override
    public String toString() { // never the key
        return "WebSearchConfig[" + backend + " " + baseUrl + (apiKeyEnv == null ? "" : ", key in " + apiKeyEnv)
                + ", maxResults=" + maxResults + "]";
    }

    /** The entry of the user's {@code config.json} in {@code configDir}; keys from {@code env}, then {@code configDir/.env}. */
    public static Loaded load(Path configDir, Map<String, String> env) {
        return load(ConfigJson.read(configDir.resolve(ConfigJson.USER_FILE)), configDir, env);
    }

    /** The entry of the process's configuration (its {@code config.json} read once). */
    public static Loaded load(AgentConfig config) {
        return load(config.userJson(), config.configDir(), config.environment());
    }

    private static Loaded load(ConfigJson userJson, Path configDir, Map<String, String> env) {
        JsonNode node = userJson.section("webSearch"); // an unreadable file: the model configuration reports it
        if (node.isMissingNode()) return Loaded.NONE;
        String file = userJson.name();
        UserDotEnvFile dotEnv = new UserDotEnvFile(configDir.resolve(".env"));
        return parse(node, file, name -> {
            String v = env.get(name);
            return v != null && !v.isBlank() ? v : dotEnv.values().get(name);
        });
    }

    /** Parses a {@code webSearch} entry ({@code where} names the file in problems). */
    public static Loaded parse(JsonNode node, String where, UnaryOperator<String> keys) {
        if (node == null || node.isMissingNode() || node.isNull()) return Loaded.NONE;
        String prefix = where + ": \"webSearch\" ";
        if (!node.isObject()) return problem(prefix + "must be an object; web_search is off.");
        String name = text(node.get("backend"));
        Backend backend;
        try {
            backend = name == null ? null : Backend.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            backend = null;
        }
        if (backend == null) return problem(prefix + "needs \"backend\": \"searxng\" or \"brave\"; web_search is off.");
        String base = text(node.get("baseUrl"));
        if (base == null && backend == Backend.BRAVE) base = BRAVE_BASE_URL;
        if (base == null) return problem(prefix + "needs \"baseUrl\", the SearXNG instance's address; web_search is off.");
        URI uri;
        try {
            uri = new URI(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
        } catch (URISyntaxException e) {
            return problem(prefix + "has a \"baseUrl\" that is not a URL; web_search is off.");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!List.of("http", "https").contains(scheme) || uri.getHost() == null || uri.getRawQuery() != null
                || uri.getRawUserInfo() != null) {
            return problem(prefix + "\"baseUrl\" must be an http(s) address without credentials or query; web_search is off.");
        }
        String keyEnv = null;
        if (backend == Backend.BRAVE) {
            keyEnv = node.has("apiKeyEnv") ? text(node.get("apiKeyEnv")) : BRAVE_DEFAULT_KEY_ENV;
            if (keyEnv == null || !VARIABLE_NAME.matcher(keyEnv).matches()) {
                return problem(prefix + "\"apiKeyEnv\" must name an environment variable; web_search is off.");
            }
        }
        int max = DEFAULT_RESULTS;
        if (node.has("maxResults")) {
            JsonNode m = node.get("maxResults");
            if (!m.canConvertToInt() || !m.isIntegralNumber() || m.asInt() < 1 || m.asInt() > MAX_RESULTS) {
                return problem(prefix + "\"maxResults\" must be a whole number from 1 to " + MAX_RESULTS + "; web_search is off.");
            }
            max = m.asInt();
        }
        return new Loaded(new WebSearchConfig(backend, uri, keyEnv, max, keys), null);
    }

    private static Loaded problem(String sentence) {
        return new Loaded(null, sentence);
    }

    private static String text(JsonNode node) {
        return node != null && node.isTextual() && !node.asText().isBlank() ? node.asText().strip() : null;
    }
}
