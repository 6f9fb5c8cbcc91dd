package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.tool.McpServerConfig.NameValue;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MCP servers declared in files: {@code mcp.json} in the user config dir and {@code .agent/mcp.json} in the
 * project. See {@code docs/mcp.md} for the format. A session's servers are the user's, then the project's, then
 * the client's, a later one replacing an earlier one of the same name. The project's come in only when the user
 * trusts its file ({@link ProjectMcpFile}); until then they are neither started nor expanded.
 */
public final class McpConfigFiles {
    public static final String FILE_NAME = "mcp.json";
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");

    /** The merged servers and the problems found in the files (plain words, safe to show). */
    public record Result(List<McpServerDefinition> servers, List<String> warnings) {}

    private McpConfigFiles() {}

    public static Path userFile(Map<String, String> environment) {
        return ConfigLocations.userConfigDir(environment).resolve(FILE_NAME);
    }

    public static Path projectFile(Path cwd) {
        return AgentConfig.projectDir(cwd).resolve(FILE_NAME);
    }

    /**
     * The servers of a session: user config &lt; project config &lt; the client's list; {@code project} is the
     * project's file the user trusts, or null to leave the project's servers out.
     */
    public static Result serversFor(ProjectMcpFile project, Map<String, String> environment, List<McpServerConfig> fromClient) {
        List<String> warnings = new ArrayList<>();
        Map<String, McpServerDefinition> byName = new LinkedHashMap<>();
        for (McpServerDefinition d : read(userFile(environment), McpServerDefinition.Origin.USER_CONFIG, environment, warnings)) {
            byName.put(d.name(), d);
        }
        if (project != null) {
            for (McpServerDefinition d : project.servers(environment, warnings)) {
                byName.remove(d.name());
                byName.put(d.name(), d);
            }
        }
        for (McpServerDefinition d : McpServerDefinition.fromClient(fromClient)) {
            byName.remove(d.name());
            byName.put(d.name(), d);
        }
        return new Result(List.copyOf(byName.values()), List.copyOf(warnings));
    }

    /** Reads one file; a missing file has no servers, a broken entry is skipped with a warning. */
    public static List<McpServerDefinition> read(Path file, McpServerDefinition.Origin origin,
                                                 Map<String, String> environment, List<String> warnings) {
        if (file == null || !Files.isRegularFile(file)) return List.of();
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            warnings.add(file + " cannot be read; its MCP servers are ignored");
            return List.of();
        }
        return parse(file, text, origin, environment, warnings);
    }

    /**
     * The servers of one file's {@code text}; a broken entry is skipped with a warning. With a null
     * {@code environment}, {@code ${…}} references are left as written (to show them, never to run them).
     */
    static List<McpServerDefinition> parse(Path file, String text, McpServerDefinition.Origin origin,
                                           Map<String, String> environment, List<String> warnings) {
        JsonNode root;
        try {
            root = Json.mapper().readTree(text);
        } catch (IOException e) {
            warnings.add(file + " is not valid JSON; its MCP servers are ignored");
            return List.of();
        }
        JsonNode servers = root == null ? null : root.get("mcpServers");
        if (servers == null || servers.isNull()) return List.of();
        if (!servers.isObject()) {
            warnings.add(file + ": \"mcpServers\" must be an object of name → server");
            return List.of();
        }
        List<McpServerDefinition> out = new ArrayList<>();
        servers.properties().forEach(e -> {
            String at = file + ": server \"" + e.getKey() + "\"";
            try {
                out.add(parse(e.getKey(), e.getValue(), origin, new Expander(environment, at, warnings)));
            } catch (IllegalArgumentException ex) {
                warnings.add(at + " is ignored: " + ex.getMessage());
            }
        });
        return out;
    }

    private static McpServerDefinition parse(String name, JsonNode e, McpServerDefinition.Origin origin, Expander x) {
        if (name.isBlank()) throw new IllegalArgumentException("its name is empty");
        if (!e.isObject()) throw new IllegalArgumentException("it must be an object");
        boolean trusted = optionalBoolean(e, "trusted");
        String type = optionalString(e, "type");
        if (type == null) type = e.has("url") && !e.has("command") ? "http" : "stdio";
        type = switch (type.toLowerCase(Locale.ROOT)) {
            case "stdio" -> "stdio";
            case "http", "streamable-http", "streamablehttp" -> "http";
            case "sse" -> "sse";
            default -> throw new IllegalArgumentException("\"type\" must be \"stdio\", \"http\" or \"sse\"");
        };
        McpServerConfig config;
        if (type.equals("stdio")) {
            String command = x.expand(optionalString(e, "command"));
            if (command == null || command.isBlank()) throw new IllegalArgumentException("\"command\" is missing");
            List<String> args = new ArrayList<>();
            JsonNode a = e.get("args");
            if (a != null && !a.isNull()) {
                if (!a.isArray()) throw new IllegalArgumentException("\"args\" must be an array of strings");
                for (JsonNode arg : a) {
                    if (!arg.isTextual()) throw new IllegalArgumentException("\"args\" must be an array of strings");
                    args.add(x.expand(arg.textValue()));
                }
            }
            config = new McpServerConfig("stdio", name, command, List.copyOf(args), nameValues(e, "env", x), null, null);
        } else {
            String url = x.expand(optionalString(e, "url"));
            if (url == null || !isHttpUrl(url)) throw new IllegalArgumentException("\"url\" must be an http or https URL");
            config = new McpServerConfig(type, name, null, null, null, url, nameValues(e, "headers", x));
        }
        return new McpServerDefinition(config, origin, trusted);
    }

    static boolean isHttpUrl(String url) {
        try {
            URI uri = URI.create(url);
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static List<NameValue> nameValues(JsonNode e, String field, Expander x) {
        JsonNode m = e.get(field);
        if (m == null || m.isNull()) return List.of();
        if (!m.isObject()) throw new IllegalArgumentException("\"" + field + "\" must be an object of name → string");
        List<NameValue> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> p : m.properties()) {
            if (!p.getValue().isTextual()) {
                throw new IllegalArgumentException("\"" + field + "\" value of \"" + p.getKey() + "\" must be a string");
            }
            out.add(new NameValue(p.getKey(), x.expand(p.getValue().textValue())));
        }
        return List.copyOf(out);
    }

    private static String optionalString(JsonNode e, String field) {
        JsonNode v = e.get(field);
        if (v == null || v.isNull()) return null;
        if (!v.isTextual()) throw new IllegalArgumentException("\"" + field + "\" must be a string");
        return v.textValue();
    }

    private static boolean optionalBoolean(JsonNode e, String field) {
        JsonNode v = e.get(field);
        if (v == null || v.isNull()) return false;
        if (!v.isBoolean()) throw new IllegalArgumentException("\"" + field + "\" must be true or false");
        return v.booleanValue();
    }

    /**
     * Replaces {@code ${NAME}} and {@code ${NAME:-default}} by the agent's environment; warns about unset ones.
     * Without an environment it leaves them as written.
     */
    private record Expander(Map<String, String> environment, String at, List<String> warnings) {
        String expand(String s) {
            if (s == null || environment == null || !s.contains("${")) return s;
            Matcher m = VARIABLE.matcher(s);
            StringBuilder out = new StringBuilder();
            while (m.find()) {
                String value = environment.get(m.group(1));
                if (value == null) {
                    value = m.group(2);
                    if (value == null) {
                        warnings.add(at + ": environment variable " + m.group(1) + " is not set (used as empty)");
                        value = "";
                    }
                }
                m.appendReplacement(out, Matcher.quoteReplacement(value));
            }
            m.appendTail(out);
            return out.toString();
        }
    }
}
