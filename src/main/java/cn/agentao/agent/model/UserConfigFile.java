package cn.agentao.agent.model;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The user's {@code config.json}: several providers, each with its models, and a default {@code provider/model};
 * and {@code passEnv}, the variables the user lets child processes inherit although they look like credentials.
 * See {@code docs/configuration.md} for the format. Problems are collected as plain sentences (never values),
 * and the usable rest of the file is kept.
 */
public record UserConfigFile(List<ProviderEntry> providers, String defaultValue, List<String> problems, List<String> passEnv,
                             Map<String, ModelPrice> prices, List<String> tokenVariables) {
    private static final java.util.regex.Pattern VARIABLE_NAME = java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public UserConfigFile {
        passEnv = List.copyOf(passEnv);
        prices = Map.copyOf(prices);
        tokenVariables = List.copyOf(tokenVariables);
    }

    public UserConfigFile(List<ProviderEntry> providers, String defaultValue, List<String> problems) {
        this(providers, defaultValue, problems, List.of(), Map.of(), List.of());
    }

    /** One {@code providers} entry as written; {@code apiKey} is the literal key, if the file holds one. */
    public record ProviderEntry(
            String id,
            ProviderKind kind,
            String baseUrl,
            String apiKey,
            String apiKeyEnv,
            List<ModelEntry> models,
            List<String> reasoningEfforts,
            Integer contextWindow,
            Integer idleTimeoutSeconds) {
        @Override
        public String toString() {
            return "ProviderEntry[id=" + id + ", kind=" + kind + ", baseUrl=" + baseUrl
                    + ", apiKey=" + (apiKey == null ? "none" : "***") + ", apiKeyEnv=" + apiKeyEnv
                    + ", models=" + models + "]";
        }
    }

    /** A model of a provider; {@code reasoningEfforts} null means "as the provider says". */
    /** @param images whether the model accepts images ({@code "images": true|false}), or null: the known models decide */
    public record ModelEntry(String id, String displayName, Integer contextWindow, List<String> reasoningEfforts,
                             Boolean images) {
        public ModelEntry(String id, String displayName, Integer contextWindow, List<String> reasoningEfforts) {
            this(id, displayName, contextWindow, reasoningEfforts, null);
        }
    }

    public static final UserConfigFile EMPTY = new UserConfigFile(List.of(), null, List.of());

    public static UserConfigFile read(Path file) {
        return of(cn.agentao.agent.config.ConfigJson.read(file));
    }

    /** The model configuration of a {@code config.json} already read (see {@link cn.agentao.agent.config.ConfigJson}). */
    public static UserConfigFile of(cn.agentao.agent.config.ConfigJson json) {
        if (!json.exists()) return EMPTY;
        if (json.unreadable()) return new UserConfigFile(List.of(), null, List.of(json.problem().orElseThrow()));
        return parse(json.root(), json.name());
    }

    public static UserConfigFile parse(JsonNode root, String fileName) {
        List<String> problems = new ArrayList<>();
        if (root == null || !root.isObject()) {
            return new UserConfigFile(List.of(), null, List.of(fileName + " must contain a JSON object; it was ignored."));
        }
        List<ProviderEntry> providers = new ArrayList<>();
        JsonNode providersNode = root.path("providers");
        if (!providersNode.isMissingNode() && !providersNode.isObject()) {
            problems.add(fileName + ": \"providers\" must be an object.");
        }
        for (Map.Entry<String, JsonNode> field : providersNode.properties()) {
            ProviderEntry entry = provider(field.getKey(), field.getValue(), fileName, problems);
            if (entry != null) {
                providers.add(entry);
            }
        }
        String defaultValue = text(root.get("default"));
        List<String> passEnv = passEnv(root.get("passEnv"), fileName, problems);
        Map<String, ModelPrice> prices = prices(root.get("prices"), fileName, problems);
        return new UserConfigFile(List.copyOf(providers), defaultValue, List.copyOf(problems), passEnv, prices, tokenVariables(root));
    }

    /**
     * The variables the connectors' entries name for their tokens ({@code smcp.tokenEnv}, {@code agora.tokenEnv},
     * {@code a2aAgents.NAME.tokenEnv}, {@code webSearch.apiKeyEnv}): credentials whatever their names, kept from every child process. Each
     * connector checks its own entry and reports its problems; here only well-formed names are taken.
     */
    private static List<String> tokenVariables(JsonNode root) {
        List<JsonNode> entries = new ArrayList<>(List.of(root.path("smcp"), root.path("agora")));
        root.path("a2aAgents").forEach(entries::add);
        List<String> names = new ArrayList<>();
        for (JsonNode entry : entries) {
            JsonNode v = entry.path("tokenEnv");
            if (v.isTextual() && VARIABLE_NAME.matcher(v.asText().strip()).matches()) names.add(v.asText().strip());
        }
        JsonNode searchKey = root.path("webSearch").path("apiKeyEnv"); // web_search's API key (docs/configuration.md)
        if (searchKey.isTextual() && VARIABLE_NAME.matcher(searchKey.asText().strip()).matches()) names.add(searchKey.asText().strip());
        return names;
    }

    /**
     * {@code "prices": {"provider/model" or "model": {"input": 3, "output": 15, "cachedInput": 0.3, "currency": "USD"}}},
     * per million tokens; {@code currency} defaults to USD, {@code cachedInput} to the input price.
     */
    private static Map<String, ModelPrice> prices(JsonNode node, String fileName, List<String> problems) {
        if (node == null || node.isNull()) return Map.of();
        if (!node.isObject()) {
            problems.add(fileName + ": \"prices\" must be an object of model -> {input, output, cachedInput, currency}; it was ignored.");
            return Map.of();
        }
        Map<String, ModelPrice> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String where = fileName + ": price of '" + e.getKey() + "'";
            JsonNode p = e.getValue();
            Double input = price(p.get("input")), output = price(p.get("output")), cached = price(p.get("cachedInput"));
            if (!p.isObject() || input == null || output == null || p.has("cachedInput") && cached == null) {
                problems.add(where + " needs \"input\" and \"output\" (and optionally \"cachedInput\") as numbers >= 0, per million tokens; it was ignored.");
                continue;
            }
            String currency = p.has("currency") ? text(p.get("currency")) : "USD";
            if (currency == null) {
                problems.add(where + " has an empty \"currency\"; it was ignored.");
                continue;
            }
            String model = e.getKey().strip();
            int slash = model.indexOf('/');
            String key = slash < 0 ? model : model.substring(0, slash).toLowerCase(Locale.ROOT) + model.substring(slash);
            out.put(key, new ModelPrice(input, output, cached, currency));
        }
        return out;
    }

    private static Double price(JsonNode node) {
        return node != null && node.isNumber() && node.asDouble() >= 0 && Double.isFinite(node.asDouble()) ? node.asDouble() : null;
    }

    private static List<String> passEnv(JsonNode node, String fileName, List<String> problems) {
        if (node == null || node.isNull()) return List.of();
        if (!node.isArray()) {
            problems.add(fileName + ": \"passEnv\" must be an array of variable names; it was ignored.");
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            if (item.isTextual() && VARIABLE_NAME.matcher(item.asText()).matches()) names.add(item.asText());
            else problems.add(fileName + ": \"passEnv\" entry " + (i + 1) + " is not a variable name; it was ignored.");
        }
        return List.copyOf(names);
    }

    private static ProviderEntry provider(String rawId, JsonNode node, String fileName, List<String> problems) {
        String id = rawId.strip().toLowerCase(Locale.ROOT);
        String where = fileName + ": provider '" + id + "'";
        if (id.isEmpty() || id.contains("/")) {
            problems.add(fileName + ": provider id '" + rawId + "' must be non-empty and contain no '/'; it was ignored.");
            return null;
        }
        if (!node.isObject()) {
            problems.add(where + " must be an object; it was ignored.");
            return null;
        }
        ProviderKind kind;
        String kindText = text(node.get("kind"));
        if (kindText == null) {
            kind = ProviderKind.forPrefix(id);
        } else {
            kind = ProviderKind.parse(kindText).orElse(null);
            if (kind == null) {
                problems.add(where + " has unknown kind '" + kindText + "' (use openai, anthropic or ollama); it was ignored.");
                return null;
            }
        }
        List<String> efforts = strings(node.get("reasoningEffort"));
        List<ModelEntry> models = new ArrayList<>();
        for (JsonNode model : node.path("models")) {
            if (model.isTextual() && !model.asText().isBlank()) {
                models.add(new ModelEntry(model.asText().strip(), null, null, null));
            } else if (model.isObject() && text(model.get("id")) != null) {
                Boolean images = model.path("images").isBoolean() ? model.get("images").asBoolean() : null;
                if (model.has("images") && images == null) {
                    problems.add(where + ": \"images\" of model '" + text(model.get("id"))
                            + "' must be true or false; the known models decide.");
                }
                models.add(new ModelEntry(text(model.get("id")), text(model.get("name")),
                        positiveInt(model.get("contextWindow")),
                        model.has("reasoningEffort") ? strings(model.get("reasoningEffort")) : null, images));
            } else {
                problems.add(where + " has a model entry without an id; it was ignored.");
            }
        }
        Integer idleTimeout = positiveInt(node.get("idleTimeoutSeconds"));
        if (node.has("idleTimeoutSeconds") && idleTimeout == null) {
            problems.add(where + ": \"idleTimeoutSeconds\" must be a whole number of seconds above 0; the default (120) is used.");
        }
        return new ProviderEntry(id, kind, text(node.get("baseUrl")), text(node.get("apiKey")),
                text(node.get("apiKeyEnv")), List.copyOf(models), efforts, positiveInt(node.get("contextWindow")), idleTimeout);
    }

    private static String text(JsonNode node) {
        return node != null && node.isTextual() && !node.asText().isBlank() ? node.asText().strip() : null;
    }

    private static Integer positiveInt(JsonNode node) {
        return node != null && node.canConvertToInt() && node.asInt() > 0 ? node.asInt() : null;
    }

    private static List<String> strings(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node != null && node.isArray()) {
            node.forEach(item -> {
                if (item.isTextual() && !item.asText().isBlank()) {
                    out.add(item.asText().strip());
                }
            });
        }
        return List.copyOf(out);
    }
}
