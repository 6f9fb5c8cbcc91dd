package cn.agentao.agent.hooks;

import cn.agentao.agent.core.hook.HookEvent;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Hooks read from one file, in Claude Code's shape:
 * <pre>{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}</pre>
 * Files are read when first needed and again when they change (their size or time); a file that cannot be read is
 * a {@link #problem} the user is told about, never quietly no hooks.
 */
final class HookConfig {
    /** Seconds a hook may run when its entry sets no {@code timeout} (Claude Code's default). */
    static final int DEFAULT_TIMEOUT_SECONDS = 60;

    /** One command of one matcher group; {@code source} names the file it came from. */
    record Command(HookEvent event, Matcher matcher, String command, int timeoutSeconds, String source) {}

    /** What one file gave: its commands, or what is wrong with it. */
    record Loaded(List<Command> commands, String problem) {
        static final Loaded NONE = new Loaded(List.of(), null);
    }

    private record Cached(long size, long modified, Loaded loaded) {}

    private static final Map<Path, Cached> CACHE = new ConcurrentHashMap<>();

    private HookConfig() {}

    /** The hooks of {@code file}: its top-level {@code hooks} object (so a config.json or settings.json works too). */
    static Loaded load(Path file) {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            CACHE.remove(file);
            return Loaded.NONE; // no file: no hooks
        }
        if (!attrs.isRegularFile()) return new Loaded(List.of(), file + " is not a file");
        Cached c = CACHE.get(file);
        if (c != null && c.size() == attrs.size() && c.modified() == attrs.lastModifiedTime().toMillis()) return c.loaded();
        Loaded loaded = parse(file);
        CACHE.put(file, new Cached(attrs.size(), attrs.lastModifiedTime().toMillis(), loaded));
        return loaded;
    }

    private static Loaded parse(Path file) {
        JsonNode root;
        try {
            root = Json.mapper().readTree(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            return new Loaded(List.of(), file + " is not valid JSON, so its hooks do not run: " + firstLine(e.getMessage()));
        }
        if (root == null || !root.isObject()) return new Loaded(List.of(), file + " is not a JSON object, so its hooks do not run");
        JsonNode hooks = root.get("hooks");
        if (hooks == null || hooks.isNull()) return Loaded.NONE;
        if (!hooks.isObject()) return new Loaded(List.of(), file + ": \"hooks\" must be an object of events, so its hooks do not run");
        List<Command> out = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (HookEvent event : HookEvent.values()) {
            JsonNode groups = hooks.get(event.wire());
            if (groups == null) continue;
            if (!groups.isArray()) {
                problems.add("\"" + event.wire() + "\" must be a list");
                continue;
            }
            for (JsonNode group : groups) {
                Matcher matcher;
                try {
                    matcher = Matcher.of(group.path("matcher").isTextual() ? group.path("matcher").textValue() : null);
                } catch (PatternSyntaxException e) {
                    problems.add(event.wire() + " matcher \"" + group.path("matcher").textValue() + "\" is not a valid regex");
                    continue;
                }
                for (JsonNode h : group.path("hooks")) {
                    String type = h.path("type").asText("command");
                    String command = h.path("command").asText("");
                    if (!type.equals("command") || command.isBlank()) {
                        problems.add(event.wire() + ": only hooks of type \"command\" with a command are supported (got type \"" + type + "\")");
                        continue;
                    }
                    int timeout = h.path("timeout").isNumber() && h.path("timeout").asDouble() > 0
                            ? (int) Math.ceil(h.path("timeout").asDouble()) : DEFAULT_TIMEOUT_SECONDS;
                    out.add(new Command(event, matcher, command, timeout, file.toString()));
                }
            }
        }
        return new Loaded(List.copyOf(out), problems.isEmpty() ? null : file + ": " + String.join("; ", problems));
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /**
     * A group's {@code matcher}: absent, empty or {@code *} matches everything; otherwise a regex that must match the
     * whole name, tried on the tool's name here and on Claude Code's name for the same tool ({@code Bash} for
     * {@code run_shell_command}), so matchers written for Claude Code work unchanged.
     */
    record Matcher(Pattern pattern) {
        static Matcher of(String text) {
            return new Matcher(text == null || text.isEmpty() || text.equals("*") ? null : Pattern.compile(text));
        }

        boolean matches(String subject) {
            if (pattern == null) return true;
            if (subject == null) return false;
            if (pattern.matcher(subject).matches()) return true;
            String claude = ClaudeToolNames.claudeName(subject);
            return claude != null && pattern.matcher(claude).matches();
        }
    }
}
