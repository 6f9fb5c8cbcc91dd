package cn.agentao.agent.subagents;

import cn.agentao.agent.hooks.ClaudeToolNames;
import cn.agentao.agent.permission.Workspace;
import cn.agentao.agent.skills.DefinitionFolders;
import cn.agentao.agent.skills.FrontMatter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The subagents a session's {@code task} tool may start: Markdown files with front matter ({@code name},
 * {@code description}, {@code tools}, {@code model}, {@code max_turns}; the body is the agent's instructions) in the
 * project's {@code .agent/agents/} and {@code .agentao/agents/} (only when the user trusts the project), then the
 * user's {@code agents/} in the config directory, then the built-ins {@value #GENERAL} and {@value #INVESTIGATOR}. The
 * first definition of a name wins, in that order. A file that cannot be used is skipped with a notice that says why.
 * {@code docs/subagents.md} describes the format.
 */
public final class AgentCatalog {
    public static final List<String> PROJECT_DIRS = List.of(".agent/agents", ".agentao/agents");
    public static final String GENERAL = "general-purpose";
    public static final String INVESTIGATOR = "codebase-investigator";
    /** A run's model calls when the definition does not say, and the most it may say. */
    public static final int DEFAULT_MAX_TURNS = 25;
    public static final int MAX_MAX_TURNS = 100;
    static final int MAX_AGENTS = 100;
    static final int MAX_FILE_BYTES = 64 * 1024;
    static final int MAX_DESCRIPTION = 1024;
    /** The tools that only read: an agent limited to these runs in a read-only mode. */
    static final Set<String> READ_ONLY_TOOLS = Set.of("read_file", "list_directory", "glob", "grep", "web_fetch", "web_search",
            "todo_write", "activate_skill");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    private static final List<AgentDefinition> BUILT_IN = List.of(
            new AgentDefinition(GENERAL, "A general agent for a self-contained task of several steps (research, a change "
                    + "and its check) that would fill your own context: it has your tools and reports back once.",
                    List.of(), null, DEFAULT_MAX_TURNS, """
                    You are a general-purpose agent. Do the task you were given completely, with the tools you have, \
                    following the rules above. Your final message is your report: what you found or changed (files by \
                    workspace-relative path), how you checked it, and anything you could not do.""", false, "built-in"),
            new AgentDefinition(INVESTIGATOR, "A read-only investigator: finds and reads code to answer a question about "
                    + "the codebase (where something is, how it works, what would be affected) without changing anything.",
                    List.of("read_file", "list_directory", "glob", "grep"), null, DEFAULT_MAX_TURNS, """
                    You are a codebase investigator. You can only read and search; you change nothing. Search with \
                    `glob` and `grep`, read what matters with `read_file`, and follow the code until you can answer. \
                    Your final message is the answer: the facts, each with the file and line it comes from, and what \
                    you could not establish.""", true, "built-in"));

    private final Map<String, AgentDefinition> agents;
    private final List<String> notices;

    private AgentCatalog(List<AgentDefinition> agents, List<String> notices) {
        Map<String, AgentDefinition> m = new LinkedHashMap<>();
        for (AgentDefinition a : agents) m.putIfAbsent(a.name(), a);
        this.agents = m;
        this.notices = List.copyOf(notices);
    }

    /** The agents, in the order they were found (the built-ins last). */
    public List<AgentDefinition> all() { return List.copyOf(agents.values()); }

    public Optional<AgentDefinition> find(String name) { return Optional.ofNullable(agents.get(name)); }

    /** One sentence per definition that was skipped (a broken file, an untrusted project, a link outside, too many). */
    public List<String> notices() { return notices; }

    /** The built-in agents only. */
    public static AgentCatalog builtIn() { return new AgentCatalog(BUILT_IN, List.of()); }

    /**
     * Finds the agents of {@code cwd} (the project's only when {@code projectTrusted}) and of the user's config
     * directory {@code configDir} (null: none), then the built-ins.
     */
    public static AgentCatalog discover(Path cwd, Path configDir, boolean projectTrusted) {
        List<AgentDefinition> found = new ArrayList<>();
        List<String> notices = new ArrayList<>();
        DefinitionFolders.walk(cwd, PROJECT_DIRS, projectTrusted, configDir == null ? null : configDir.resolve("agents"), "Agents",
                root -> !files(root, notices).isEmpty(),
                (root, origin, project) -> load(root, origin, project ? cwd : null, found, notices), notices);
        found.addAll(BUILT_IN);
        return new AgentCatalog(found, notices);
    }

    private static List<Path> files(Path root, List<String> notices) {
        try (Stream<Path> files = Files.list(root)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".md") && Files.isRegularFile(f)).sorted().toList();
        } catch (IOException e) {
            notices.add("Agents in " + root + " could not be listed: " + e.getMessage());
            return List.of();
        }
    }

    /** Loads the definitions in {@code root}; {@code workspace}: the project they must stay inside (null: the user's). */
    private static void load(Path root, String origin, Path workspace, List<AgentDefinition> found, List<String> notices) {
        if (!Files.isDirectory(root)) return;
        for (Path f : files(root, notices)) {
            String where = origin + "/" + f.getFileName();
            if (found.size() >= MAX_AGENTS) {
                notices.add("Agent " + where + " and any after it were not loaded: at most " + MAX_AGENTS + " agents are loaded.");
                return;
            }
            if (workspace != null && !Workspace.of(workspace).contains(f)) {
                notices.add("Agent " + where + " was not loaded: it is a link to a file outside the workspace.");
                continue;
            }
            try {
                AgentDefinition a = parse(f, where);
                if (found.stream().noneMatch(x -> x.name().equals(a.name()))) found.add(a);
            } catch (FrontMatter.Invalid e) {
                notices.add("Agent " + where + " was not loaded: " + e.getMessage() + ".");
            }
        }
    }

    /** Reads one definition; throws with a sentence for the user when it cannot be used. */
    static AgentDefinition parse(Path file, String origin) throws FrontMatter.Invalid {
        FrontMatter.Parsed p = FrontMatter.parse(read(file));
        String fileName = file.getFileName().toString();
        String name = text(p.values().get("name"));
        if (name == null || name.isBlank()) name = fileName.substring(0, fileName.length() - 3);
        if (!NAME.matcher(name).matches()) {
            throw new FrontMatter.Invalid("its name '" + name + "' is not 1-64 letters, digits, '-', '_' or '.'");
        }
        String description = text(p.values().get("description"));
        if (description == null || description.isBlank()) throw new FrontMatter.Invalid("its front matter has no description");
        description = description.strip().replaceAll("\\s+", " ");
        if (description.length() > MAX_DESCRIPTION) description = description.substring(0, MAX_DESCRIPTION) + "…";
        List<String> tools = tools(p.values().get("tools"));
        String model = text(p.values().get("model"));
        if (model != null && (model.isBlank() || model.strip().equals("inherit"))) model = null;
        int maxTurns = DEFAULT_MAX_TURNS;
        Object turns = p.values().get("max_turns");
        if (turns != null) {
            try {
                maxTurns = Integer.parseInt(String.valueOf(turns).strip());
            } catch (NumberFormatException e) {
                throw new FrontMatter.Invalid("its max_turns '" + turns + "' is not a whole number");
            }
            if (maxTurns < 1 || maxTurns > MAX_MAX_TURNS) {
                throw new FrontMatter.Invalid("its max_turns " + maxTurns + " is not between 1 and " + MAX_MAX_TURNS);
            }
        }
        boolean readOnly = !tools.isEmpty() && READ_ONLY_TOOLS.containsAll(tools);
        return new AgentDefinition(name, description, tools, model == null ? null : model.strip(), maxTurns, p.body(), readOnly, origin);
    }

    /**
     * The {@code tools} value: a YAML list or a comma-separated string (as Claude Code writes it), Claude Code's names
     * ({@code Read}, {@code Bash}) taken as ours; absent, empty or {@code *}: every tool.
     */
    private static List<String> tools(Object value) {
        List<String> raw = new ArrayList<>();
        if (value instanceof List<?> l) {
            for (Object o : l) raw.add(o.toString());
        } else if (value instanceof String s) {
            for (String x : s.split(",")) raw.add(x);
        }
        Set<String> out = new LinkedHashSet<>();
        for (String r : raw) {
            String t = r.strip();
            if (t.isEmpty()) continue;
            if (t.equals("*")) return List.of();
            String ours = ClaudeToolNames.ours(t);
            out.add(ours != null ? ours : t);
        }
        return List.copyOf(out);
    }

    private static String text(Object v) {
        return v instanceof String s ? s : null;
    }

    private static String read(Path file) throws FrontMatter.Invalid {
        return FrontMatter.read(file, MAX_FILE_BYTES, "a definition");
    }
}
