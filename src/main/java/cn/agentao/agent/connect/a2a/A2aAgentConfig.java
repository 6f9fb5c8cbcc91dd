package cn.agentao.agent.connect.a2a;

import cn.agentao.agent.config.ConfigJson;
import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A remote A2A agent the user configured in {@code config.json}: {@code "a2aAgents": {"NAME": {"url": "http://…",
 * "tokenEnv": "VAR", "allowedEndpoints": ["https://…"]}}}. {@code url} is the agent's base URL (where
 * {@code /.well-known/agent-card.json} is); the token, if any, is read from the environment variable named by
 * {@code tokenEnv}, never from a file. The card's endpoint must be on {@code url}'s origin or on the origin of one of
 * {@code allowedEndpoints}. Only the user's own configuration is read: a project cannot add remote agents.
 */
public record A2aAgentConfig(String name, URI url, String tokenEnv, List<URI> allowedEndpoints) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,48}");

    /** The configured agents (problems, such as a bad URL, are reported and the entry skipped). */
    public static List<A2aAgentConfig> read(Path configFile, List<String> problems) {
        return read(ConfigJson.read(configFile), problems);
    }

    /** The agents of a {@code config.json} already read (an unreadable file is reported by the model configuration). */
    public static List<A2aAgentConfig> read(ConfigJson config, List<String> problems) {
        String configFile = config.name();
        JsonNode agents = config.section("a2aAgents");
        if (agents.isMissingNode()) return List.of();
        if (!agents.isObject()) {
            problems.add(configFile + ": \"a2aAgents\" must be an object of NAME: {url, tokenEnv?}");
            return List.of();
        }
        List<A2aAgentConfig> list = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : agents.properties()) {
            String name = e.getKey();
            JsonNode v = e.getValue();
            if (!NAME.matcher(name).matches()) {
                problems.add(configFile + ": a2aAgents name \"" + name + "\" must be 1-48 letters, digits, _ or -");
                continue;
            }
            String url = v.path("url").asText("");
            URI uri = httpUrl(url);
            if (uri == null) {
                problems.add(configFile + ": a2aAgents." + name + ".url must be an http(s) URL");
                continue;
            }
            String tokenEnv = v.path("tokenEnv").isTextual() ? v.path("tokenEnv").asText() : null;
            List<URI> endpoints = new ArrayList<>();
            JsonNode allowed = v.path("allowedEndpoints");
            if (!allowed.isMissingNode() && !allowed.isArray()) {
                problems.add(configFile + ": a2aAgents." + name + ".allowedEndpoints must be an array of http(s) URLs");
            }
            for (JsonNode a : allowed) {
                URI endpoint = a.isTextual() ? httpUrl(a.asText()) : null;
                if (endpoint == null) problems.add(configFile + ": a2aAgents." + name + ".allowedEndpoints: " + a + " is not an http(s) URL (ignored)");
                else endpoints.add(endpoint);
            }
            list.add(new A2aAgentConfig(name, uri, tokenEnv, List.copyOf(endpoints)));
        }
        return list;
    }

    private static URI httpUrl(String text) {
        try {
            URI uri = URI.create(text);
            return uri.getHost() != null && ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) ? uri : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The tool's name: {@code a2a__NAME}. */
    public String toolName() { return "a2a__" + name; }
}
