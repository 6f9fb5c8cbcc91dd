package cn.agentao.agent.core;

import cn.agentao.agent.core.content.AvailableCommand;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Slash commands: the built-ins, and user commands from Markdown files in {@code .agent/commands/} of the
 * project (only when the user trusts it, as for its skills, MCP servers and hooks) and of the user config dir (the
 * project's win). A user command's file is a prompt template in which
 * {@code $ARGUMENTS} is replaced by what follows the command; its first line, when it starts with
 * {@code description:}, describes it.
 */
public final class SlashCommands {
    public static final List<AvailableCommand> BUILT_IN = List.of(
            new AvailableCommand("compact", "Summarise older turns to free context", null),
            new AvailableCommand("model", "Switch the model for the next turn", "provider/model"),
            new AvailableCommand("mode", "Switch the permission mode", "read-only | workspace-write | full-access | plan"),
            new AvailableCommand("memory", "Show, add or forget what the agent remembers across sessions",
                    "show | add [--user] <fact> | forget <number or text>"),
            new AvailableCommand("undo", "Take back the files the last turn changed (write_file, edit)", null),
            new AvailableCommand("rewind", "Put the files back as they were before turn N; without N, list the turns",
                    "turn number"),
            new AvailableCommand("ps", "List the commands running in the background", null),
            new AvailableCommand("help", "List the commands", null));
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    /** A parsed {@code /name args} prompt. */
    public record Invocation(String name, String arguments) {}

    /** A user command: its name, description and template. */
    public record UserCommand(String name, String description, String template) {
        public String expand(String arguments) {
            return template.contains("$ARGUMENTS") ? template.replace("$ARGUMENTS", arguments)
                    : arguments.isEmpty() ? template : template + "\n\n" + arguments;
        }
    }

    private SlashCommands() {}

    /** {@code /name rest} → invocation; anything else → null. */
    public static Invocation parse(String text) {
        String t = text.strip();
        if (!t.startsWith("/") || t.length() < 2) return null;
        int sp = indexOfWhitespace(t);
        String name = sp < 0 ? t.substring(1) : t.substring(1, sp);
        if (!NAME.matcher(name).matches()) return null;
        return new Invocation(name, sp < 0 ? "" : t.substring(sp).strip());
    }

    private static int indexOfWhitespace(String s) {
        for (int i = 0; i < s.length(); i++) if (Character.isWhitespace(s.charAt(i))) return i;
        return -1;
    }

    /**
     * User commands for a session: user config dir first, then the project's, which override by name; the project's
     * only when {@code projectTrusted} (a command is a prompt the user runs by name: an untrusted repository must not
     * put its words behind a familiar one).
     */
    public static Map<String, UserCommand> userCommands(Path cwd, Path configDir, boolean projectTrusted) {
        Map<String, UserCommand> out = new LinkedHashMap<>();
        if (configDir != null) load(configDir.resolve("commands"), null, out);
        if (projectTrusted) load(ProjectFiles.commandsDir(cwd), cwd, out);
        return out;
    }

    /** What to tell the user once when an untrusted project has commands that were not loaded; empty otherwise. */
    public static java.util.Optional<String> untrustedNotice(Path cwd) {
        Path dir = ProjectFiles.commandsDir(cwd);
        if (!Files.isDirectory(dir)) return java.util.Optional.empty();
        try (Stream<Path> files = Files.list(dir)) {
            if (files.noneMatch(f -> f.getFileName().toString().endsWith(".md"))) return java.util.Optional.empty();
        } catch (IOException e) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("Slash commands in .agent/commands were not loaded: this project is not trusted. "
                + "Run `agent trust` in it (or answer Trust when asked) to use its commands.");
    }

    /** Loads the commands of {@code dir}; with a {@code project}, only files that resolve inside it. */
    private static void load(Path dir, Path project, Map<String, UserCommand> out) {
        if (!Files.isDirectory(dir)) return;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                String file = f.getFileName().toString();
                if (!file.endsWith(".md") || !Files.isRegularFile(f)) continue;
                if (project != null && !ProjectFiles.readable(f, project)) continue; // a link outside: see ProjectFiles
                String name = file.substring(0, file.length() - 3);
                if (!NAME.matcher(name).matches() || BUILT_IN.stream().anyMatch(b -> b.name().equals(name))) continue;
                String text = Files.readString(f);
                String description = "User command from " + dir.getParent().getFileName() + "/commands";
                if (text.startsWith("description:")) {
                    int nl = text.indexOf('\n');
                    description = (nl < 0 ? text : text.substring(0, nl)).substring("description:".length()).strip();
                    text = nl < 0 ? "" : text.substring(nl + 1);
                }
                out.put(name, new UserCommand(name, description, text.strip()));
            }
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(SlashCommands.class).warn("cannot read commands in {}: {}", dir, e.toString());
        }
    }

    public static List<AvailableCommand> advertised(Map<String, UserCommand> user) {
        List<AvailableCommand> all = new ArrayList<>(BUILT_IN);
        for (UserCommand c : user.values()) all.add(new AvailableCommand(c.name(), c.description(), "arguments"));
        return all;
    }
}
