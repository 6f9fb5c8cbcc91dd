package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.config.ConfigJson;
import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The office to join, from the {@code smcp} object of the user's {@code config.json} (never from a project's
 * files): {@code {"url": "http://HOST:PORT", "office": "OFFICE", "name": "AGENT_NAME", "tokenEnv": "VAR",
 * "a2cVersion": "0.3.0", "toolTimeoutSeconds": 120}}. The token is read from the variable {@code tokenEnv} names.
 *
 * @param token      the secret for {@code auth.token}, or null; never shown ({@link #toString()} masks it)
 * @param a2cVersion the protocol version to speak, forced (no other is tried); null: the agent offers the newest it
 *                   speaks and, when the server refuses it (4008), the one the server's refusal says it accepts
 */
public record SmcpConfig(URI url, String office, String name, String token, String tokenEnv, String a2cVersion,
                         Duration toolTimeout) {
    /** The newest protocol version this agent speaks (offered first unless {@code a2cVersion} forces one). */
    public static final String DEFAULT_VERSION = SmcpVersions.LATEST;
    static final Duration DEFAULT_TOOL_TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern VERSION = Pattern.compile("\\d+\\.\\d+\\.\\d+");
    private static final Pattern VARIABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    @Override
    public String toString() {
        return "SmcpConfig[url=" + url + ", office=" + office + ", name=" + name + ", token=" + (token == null ? "none" : "***")
                + ", tokenEnv=" + tokenEnv + ", a2cVersion=" + a2cVersion + "]";
    }

    /** The office of the user's config.json, if it names one; a problem (a plain sentence) when it is malformed. */
    public static Result read(Path configJson, Map<String, String> env) {
        return read(ConfigJson.read(configJson), env);
    }

    /** The office of a {@code config.json} already read; an unreadable file is reported by the model configuration. */
    public static Result read(ConfigJson configJson, Map<String, String> env) {
        JsonNode node = configJson.section("smcp");
        return parse(node.isMissingNode() ? null : node, configJson.name(), env);
    }


    static Result parse(JsonNode node, String file, Map<String, String> env) {
        if (node == null || node.isNull()) return new Result(Optional.empty(), List.of());
        String where = file + ": \"smcp\"";
        if (!node.isObject()) return problem(where + " must be an object; no office is joined.");
        String url = text(node, "url");
        String office = text(node, "office");
        if (url == null || office == null) return problem(where + " needs \"url\" and \"office\"; no office is joined.");
        URI uri;
        try {
            uri = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        } catch (IllegalArgumentException e) {
            return problem(where + ": \"url\" is not a URL; no office is joined.");
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            return problem(where + ": \"url\" must be http(s)://HOST:PORT; no office is joined.");
        }
        String name = text(node, "name");
        String version = text(node, "a2cVersion");
        if (version != null && !VERSION.matcher(version).matches()) {
            return problem(where + ": \"a2cVersion\" must look like 0.2.0; no office is joined.");
        }
        String tokenEnv = text(node, "tokenEnv");
        String token = null;
        if (tokenEnv != null) {
            if (!VARIABLE_NAME.matcher(tokenEnv).matches()) return problem(where + ": \"tokenEnv\" must be a variable name; no office is joined.");
            token = env.get(tokenEnv);
            if (token == null || token.isBlank()) {
                return problem(where + ": the variable " + tokenEnv + " (tokenEnv) is not set; no office is joined.");
            }
        }
        Duration timeout = DEFAULT_TOOL_TIMEOUT;
        if (node.has("toolTimeoutSeconds")) {
            JsonNode t = node.get("toolTimeoutSeconds");
            if (!t.canConvertToInt() || t.asInt() < 1) return problem(where + ": \"toolTimeoutSeconds\" must be a positive whole number; no office is joined.");
            timeout = Duration.ofSeconds(t.asInt());
        }
        return new Result(Optional.of(new SmcpConfig(uri, office, name != null ? name : "agent", token, tokenEnv,
                version, timeout)), List.of());
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v != null && v.isTextual() && !v.asText().isBlank() ? v.asText().trim() : null;
    }

    private static Result problem(String sentence) {
        return new Result(Optional.empty(), List.of(sentence));
    }

    /** The office, if configured, and the problems found (plain sentences, never values). */
    public record Result(Optional<SmcpConfig> config, List<String> problems) {}
}
