package cn.agentao.agent.permission;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The user's own permission rules, read from {@code $XDG_CONFIG_HOME/agent/permissions.json} (or
 * {@code ~/.config/agent/permissions.json} when {@code XDG_CONFIG_HOME} is unset):
 *
 * <pre>{@code
 * {
 *   "allow": [ {"tool": "run_shell_command", "command": "npm test*"},
 *              {"tool": "web_fetch", "url": "https://docs.oracle.com/*"} ],
 *   "ask":   [ {"tool": "write_file", "path": "*.lock"} ],
 *   "deny":  [ {"tool": "web_fetch", "url": "*.example.com*"},
 *              {"path": "~/.ssh/*"} ]
 * }
 * }</pre>
 *
 * <p>Each rule names a {@code tool} (a glob; omitted means every tool) and at most one of: {@code command}
 * (shell command lines), {@code path} (file paths: absolute, {@code ~/...}, or relative to a workspace root),
 * {@code url} (fetched URLs). A rule with a qualifier only applies to requests of that kind; a rule without
 * one applies to every request of its tools. Patterns are globs where {@code *} matches any characters
 * (slashes included) and {@code ?} one character; matching is case-sensitive and whole-string.
 *
 * <p>Command rules are judged per simple command: {@code deny} and {@code ask} match when the whole line or any
 * of its commands matches; {@code allow} only when every command of the line matches some allow rule, so
 * {@code "npm test*"} does not allow {@code npm test && curl x | sh}. Path rules: {@code deny} and {@code ask}
 * match the path as written or as resolved (links followed); {@code allow} matches only the resolved path.
 *
 * <p>Order: deny, then ask, then allow. Rules never beat the built-in blocklist, the web-fetch network guard,
 * a read-only mode, or the workspace boundary (a write outside the workspace is always asked).
 */
public final class PermissionRules {
    private static final Logger log = LoggerFactory.getLogger(PermissionRules.class);
    private static final Set<String> RULE_KEYS = Set.of("tool", "command", "path", "url");

    public static final PermissionRules EMPTY = new PermissionRules(List.of(), List.of(), List.of());

    /** One rule; null fields are absent. */
    public record Rule(String tool, String command, String path, String url) {
        public Rule {
            int qualifiers = (command != null ? 1 : 0) + (path != null ? 1 : 0) + (url != null ? 1 : 0);
            if (qualifiers > 1) throw new IllegalArgumentException("a rule takes at most one of command, path, url");
        }

        boolean appliesToTool(String name) {
            return tool == null || Glob.text(tool).matcher(name).matches();
        }
    }

    /** What a request looks like to the rules; built by the engine. */
    record Subject(String tool, List<String> commands, String commandLine, List<String> writtenPaths,
                   List<String> realPaths, String url) {}

    private final List<Rule> allow;
    private final List<Rule> ask;
    private final List<Rule> deny;
    private final Path home;

    public PermissionRules(List<Rule> allow, List<Rule> ask, List<Rule> deny) {
        this(allow, ask, deny, cn.agentao.agent.util.UserHome.current());
    }

    PermissionRules(List<Rule> allow, List<Rule> ask, List<Rule> deny, Path home) {
        this.allow = List.copyOf(allow);
        this.ask = List.copyOf(ask);
        this.deny = List.copyOf(deny);
        this.home = home;
    }

    public List<Rule> allow() { return allow; }

    public List<Rule> ask() { return ask; }

    public List<Rule> deny() { return deny; }

    /** Parses the file format above; throws IllegalArgumentException saying what is wrong. */
    public static PermissionRules parse(JsonNode json) {
        if (json == null || !json.isObject()) throw new IllegalArgumentException("permissions must be a JSON object");
        for (Map.Entry<String, JsonNode> field : json.properties()) {
            String key = field.getKey();
            if (!Set.of("allow", "ask", "deny").contains(key) && !key.startsWith("_") && !key.equals("$schema")) {
                throw new IllegalArgumentException("unknown key '" + key + "' (expected allow, ask, deny)");
            }
        }
        return new PermissionRules(rules(json, "allow"), rules(json, "ask"), rules(json, "deny"));
    }

    private static List<Rule> rules(JsonNode json, String key) {
        JsonNode list = json.get(key);
        if (list == null || list.isNull()) return List.of();
        if (!list.isArray()) throw new IllegalArgumentException("'" + key + "' must be an array of rules");
        List<Rule> out = new ArrayList<>();
        for (JsonNode r : list) {
            if (!r.isObject()) throw new IllegalArgumentException("each rule in '" + key + "' must be an object");
            for (Map.Entry<String, JsonNode> f : r.properties()) {
                if (!RULE_KEYS.contains(f.getKey())) {
                    throw new IllegalArgumentException("unknown rule key '" + f.getKey() + "' in '" + key
                            + "' (expected tool, command, path, url)");
                }
                if (!f.getValue().isTextual() || f.getValue().asText().isEmpty()) {
                    throw new IllegalArgumentException("rule key '" + f.getKey() + "' in '" + key + "' must be a non-empty string");
                }
            }
            out.add(new Rule(text(r, "tool"), text(r, "command"), text(r, "path"), text(r, "url")));
        }
        return out;
    }

    private static String text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v == null ? null : v.asText();
    }

    /** Reads a rules file; a missing file gives {@link #EMPTY}. */
    public static PermissionRules load(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            return EMPTY;
        }
        try {
            return parse(Json.mapper().readTree(text));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IOException(file + ": not valid JSON: " + e.getMessage(), e);
        }
    }

    /** Where the user's rules live, given the environment and the home directory. */
    public static Path userRulesFile(Map<String, String> env, Path home) {
        String xdg = env.get("XDG_CONFIG_HOME");
        Path config = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg) : home.resolve(".config");
        return config.resolve("agent").resolve("permissions.json");
    }

    /**
     * The user's rules from {@code file}; an unreadable or malformed file is logged and ignored (the presets still
     * apply), so a typo never stops the agent from starting.
     */
    public static PermissionRules loadUserRules(Path file) {
        try {
            PermissionRules rules = load(file);
            if (rules != EMPTY) log.info("permission rules loaded from {}", file);
            return rules;
        } catch (IOException e) {
            log.error("ignoring permission rules: {}", e.getMessage());
            return EMPTY;
        }
    }

    // ---- matching (used by the engine) ----

    /** The first deny rule matching the subject. */
    Rule matchDeny(Subject s) {
        return firstMatch(deny, s);
    }

    /** The first ask rule matching the subject. */
    Rule matchAsk(Subject s) {
        return firstMatch(ask, s);
    }

    /** Whether allow rules cover the whole request. */
    boolean allows(Subject s) {
        List<Rule> forTool = allow.stream().filter(r -> r.appliesToTool(s.tool())).toList();
        if (forTool.isEmpty()) return false;
        if (s.commandLine() != null) {
            if (forTool.stream().anyMatch(r -> r.command() == null && r.path() == null && r.url() == null)) return true;
            if (s.commands().isEmpty()) return false;
            for (String c : s.commands()) {
                if (forTool.stream().noneMatch(r -> r.command() != null && Glob.text(r.command()).matcher(c).matches())) {
                    return false;
                }
            }
            return true;
        }
        for (Rule r : forTool) {
            if (r.command() == null && r.path() == null && r.url() == null) return true;
            if (r.path() != null && !s.realPaths().isEmpty() && anyMatches(pathPattern(r.path()), s.realPaths())) return true;
            if (r.url() != null && s.url() != null && Glob.text(r.url()).matcher(s.url()).matches()) return true;
        }
        return false;
    }

    private Rule firstMatch(List<Rule> rules, Subject s) {
        for (Rule r : rules) {
            if (!r.appliesToTool(s.tool())) continue;
            if (r.command() == null && r.path() == null && r.url() == null) return r;
            if (r.command() != null && s.commandLine() != null) {
                Pattern p = Glob.text(r.command());
                if (p.matcher(s.commandLine()).matches() || anyMatches(p, s.commands())) return r;
            }
            if (r.path() != null) {
                Pattern p = pathPattern(r.path());
                if (anyMatches(p, s.writtenPaths()) || anyMatches(p, s.realPaths())) return r;
            }
            if (r.url() != null && s.url() != null && Glob.text(r.url()).matcher(s.url()).matches()) return r;
        }
        return null;
    }

    private Pattern pathPattern(String glob) {
        if (glob.equals("~")) glob = home.toString();
        else if (glob.startsWith("~/")) glob = home.resolve(glob.substring(2)).toString();
        return Glob.text(glob);
    }

    private static boolean anyMatches(Pattern p, List<String> texts) {
        for (String t : texts) if (p.matcher(t).matches()) return true;
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PermissionRules r && allow.equals(r.allow) && ask.equals(r.ask) && deny.equals(r.deny);
    }

    @Override
    public int hashCode() {
        return Objects.hash(allow, ask, deny);
    }
}
