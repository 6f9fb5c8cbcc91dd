package cn.agentao.agent.permission;

import cn.agentao.agent.permission.ShellCommandLine.SimpleCommand;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code allow_always} / {@code reject_always} answers of one session.
 *
 * <p>An answer is remembered per tool, narrowed for two tools where one approval must not approve everything:
 * a shell command is remembered per program ({@code npm test} approves later {@code npm} commands, not
 * {@code curl}; a line with several programs needs each approved, except read-only ones such as {@code grep}
 * and {@code cd}), a fetch per host. A line whose program name is
 * computed ({@code $CMD}) is never remembered.
 *
 * <p>What remembering does is decided by the engine: a remembered rejection denies (narrowing is always safe); a
 * remembered approval only turns an ordinary question into an approval. It never crosses the workspace boundary,
 * the blocklist, the network guard, a user deny or ask rule, or a read-only mode's refusals.
 *
 * <p>Thread-safe. {@link #toJson()} / {@link #fromJson(JsonNode)} let the session store persist it:
 * {@code {"allow":[{"tool":"write_file"},{"tool":"run_shell_command","program":"npm"}],
 * "reject":[{"tool":"web_fetch","host":"example.com"}]}}; an SMCP tool's answer also has {@code "subject"}.
 */
public final class PermissionMemory {

    public enum Answer { ALLOW, REJECT }

    /**
     * What one remembered answer covers: a tool, optionally narrowed to a program or a host, or tied to its owner
     * ({@code subject}, an SMCP tool's Computer and own name: {@link PermissionRequest.Generic#subject()}).
     */
    public record Scope(String tool, String program, String host, String subject) {
        static Scope tool(String tool) { return new Scope(tool, null, null, null); }

        @Override
        public String toString() {
            return tool + (program != null ? " " + (program.isEmpty() ? "(no command)" : program) : "")
                    + (host != null ? " " + host : "") + (subject != null ? " (" + subject + ")" : "");
        }
    }

    private final Map<Scope, Answer> answers = new LinkedHashMap<>();

    /**
     * Records a permission answer by its option id; only {@code allow_always} and {@code reject_always} are
     * remembered. Returns whether something was remembered.
     */
    public boolean record(PermissionRequest request, String optionId) {
        return switch (optionId) {
            case "allow_always" -> remember(request, Answer.ALLOW);
            case "reject_always" -> remember(request, Answer.REJECT);
            default -> false;
        };
    }

    /** Remembers an answer for the request's scopes; false when the request cannot be remembered. */
    public boolean remember(PermissionRequest request, Answer answer) {
        Optional<List<Scope>> scopes = scopes(request);
        if (scopes.isEmpty()) return false;
        synchronized (answers) {
            for (Scope s : scopes.get()) answers.put(s, answer);
        }
        return true;
    }

    /** REJECT when any scope was rejected, ALLOW when every scope was allowed, else empty. */
    public Optional<Answer> recall(PermissionRequest request) {
        Optional<List<Scope>> scopes = scopes(request);
        if (scopes.isEmpty()) return Optional.empty();
        synchronized (answers) {
            boolean allAllowed = true;
            for (Scope s : scopes.get()) {
                Answer a = answers.get(s);
                if (a == Answer.REJECT) return Optional.of(Answer.REJECT);
                allAllowed &= a == Answer.ALLOW;
            }
            return allAllowed ? Optional.of(Answer.ALLOW) : Optional.empty();
        }
    }

    /** Whether an answer to this request can be remembered at all. */
    public boolean canRemember(PermissionRequest request) {
        return scopes(request).isPresent();
    }

    /** A short label of what an always-answer would cover, e.g. {@code run_shell_command npm, git}. */
    public String describeScope(PermissionRequest request) {
        return scopes(request).map(list -> {
            if (list.size() == 1) return list.get(0).toString();
            List<String> parts = new ArrayList<>();
            for (Scope s : list) parts.add(s.program() != null ? s.program() : s.toString());
            return list.get(0).tool() + " " + String.join(", ", parts);
        }).orElse(request.tool());
    }

    public void clear() {
        synchronized (answers) {
            answers.clear();
        }
    }

    public Map<Scope, Answer> snapshot() {
        synchronized (answers) {
            return Map.copyOf(answers);
        }
    }

    static Optional<List<Scope>> scopes(PermissionRequest request) {
        return switch (request) {
            case PermissionRequest.RunCommand rc -> {
                Set<String> programs = new LinkedHashSet<>();
                List<SimpleCommand> commands = ShellCommandLine.parse(rc.commandLine()).effectiveCommands();
                for (SimpleCommand c : commands) {
                    String p = c.words().isEmpty() ? "" : c.words().get(0);
                    if (p.contains("$") || p.contains("`") || p.contains("*") || p.contains("?")) yield Optional.empty();
                }
                // like allow rules: read-only commands and cd need no approval of their own
                for (SimpleCommand c : ReadOnlyCommands.needingApproval(commands, rc.cwd())) programs.add(c.program());
                if (programs.isEmpty()) programs.add(commands.isEmpty() ? "" : commands.get(0).program());
                yield Optional.of(programs.stream().map(p -> new Scope(rc.tool(), p, null, null)).toList());
            }
            case PermissionRequest.FetchUrl fu -> {
                try {
                    String host = new URI(fu.url()).getHost();
                    yield host == null ? Optional.empty()
                            : Optional.of(List.of(new Scope(fu.tool(), null, host.toLowerCase(Locale.ROOT), null)));
                } catch (URISyntaxException e) {
                    yield Optional.empty();
                }
            }
            case PermissionRequest.Generic g when g.subject() != null -> Optional.of(List.of(new Scope(g.tool(), null, null, g.subject())));
            default -> Optional.of(List.of(Scope.tool(request.tool())));
        };
    }

    public ObjectNode toJson() {
        ObjectNode root = Json.object();
        ArrayNode allow = root.putArray("allow");
        ArrayNode reject = root.putArray("reject");
        synchronized (answers) {
            for (Map.Entry<Scope, Answer> e : answers.entrySet()) {
                ObjectNode n = (e.getValue() == Answer.ALLOW ? allow : reject).addObject();
                n.put("tool", e.getKey().tool());
                if (e.getKey().program() != null) n.put("program", e.getKey().program());
                if (e.getKey().host() != null) n.put("host", e.getKey().host());
                if (e.getKey().subject() != null) n.put("subject", e.getKey().subject());
            }
        }
        return root;
    }

    /** Restores what {@link #toJson()} wrote; malformed entries are skipped. */
    public static PermissionMemory fromJson(JsonNode json) {
        PermissionMemory m = new PermissionMemory();
        if (json == null || !json.isObject()) return m;
        read(m, json.get("allow"), Answer.ALLOW);
        read(m, json.get("reject"), Answer.REJECT);
        return m;
    }

    private static void read(PermissionMemory m, JsonNode list, Answer answer) {
        if (list == null || !list.isArray()) return;
        for (JsonNode n : list) {
            JsonNode tool = n.get("tool");
            if (tool == null || !tool.isTextual() || tool.asText().isEmpty()) continue;
            String program = n.hasNonNull("program") ? n.get("program").asText() : null;
            String host = n.hasNonNull("host") ? n.get("host").asText() : null;
            String subject = n.hasNonNull("subject") ? n.get("subject").asText() : null;
            if ((program != null ? 1 : 0) + (host != null ? 1 : 0) + (subject != null ? 1 : 0) > 1) continue;
            m.answers.put(new Scope(tool.asText(), program, host, subject), answer);
        }
    }
}
