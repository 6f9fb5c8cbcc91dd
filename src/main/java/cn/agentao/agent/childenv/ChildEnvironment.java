package cn.agentao.agent.childenv;

import java.io.File;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The environment of every process the agent starts (shell commands, stdio MCP servers): the one place that
 * decides it. The agent's own environment is inherited (a deny-list, like Codex's default {@code inherit = all}
 * with its excludes), minus:
 * <ul>
 *   <li>credentials: names and values (see {@link Credentials}), unless the user's {@code passEnv} names them;</li>
 *   <li>variables that change what a command line means or runs behind its back: {@code LD_PRELOAD},
 *       {@code BASH_ENV}, {@code ENV}, exported bash functions ({@code BASH_FUNC_*}), {@code JAVA_TOOL_OPTIONS},
 *       {@code NODE_OPTIONS}, every {@code GIT_*} and the like ({@link #UNSAFE});</li>
 *   <li>{@code PATH} and {@code LD_LIBRARY_PATH} entries that are relative or inside the session's roots, where
 *       a project could shadow {@code ls} or {@code git}.</li>
 * </ul>
 * Then {@link #SETTINGS} are set: no pagers, no git prompts, and git hardened by {@code GIT_CONFIG_*} so that a
 * repository's own config cannot run a program on a read-only {@code git status} ({@code core.fsmonitor}) and an
 * embedded bare repository is not picked up by discovery. Hooks are left alone: they run only on commands that
 * write (commit, checkout, merge), which are asked or sandboxed, and users rely on them for {@code git commit}.
 *
 * <p>A deny-list rather than an allow-list: toolchains live in variables no list can foresee ({@code JAVA_HOME},
 * {@code GOPATH}, {@code VIRTUAL_ENV}, {@code NVM_DIR}, {@code SDKMAN_DIR}, {@code CONDA_PREFIX}, …), and the
 * guarantee that matters, no credential, is kept by names and by values, which also catches a key copied under an
 * innocent name.
 */
public final class ChildEnvironment {
    /** Dropped from what the agent passes on, whatever their value. */
    static final Set<String> UNSAFE = Set.of("LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH",
            "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "CDPATH",
            "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "NODE_OPTIONS", "PERL5OPT", "RUBYOPT",
            "PAGER", "MANPAGER", "EDITOR", "VISUAL");
    /** Dropped by prefix: git's whole environment (GIT_DIR, GIT_CONFIG_*, GIT_SSH_COMMAND, …) and exported functions. */
    static final List<String> UNSAFE_PREFIXES = List.of("GIT_", "BASH_FUNC_");
    /** Path lists whose workspace entries are removed. */
    static final Set<String> PATH_LISTS = Set.of("PATH", "LD_LIBRARY_PATH");

    /** Set for every child, over anything inherited or passed. */
    public static final Map<String, String> SETTINGS = settings();

    private final Map<String, String> inherited;
    private final Credentials credentials;
    private final List<Path> roots;
    private final Map<String, String> variables;

    private ChildEnvironment(Map<String, String> inherited, Credentials credentials, Collection<Path> roots) {
        this.inherited = Map.copyOf(inherited);
        this.credentials = credentials;
        this.roots = List.copyOf(roots);
        this.variables = build();
    }

    /** Children of a session with {@code roots}, inheriting from {@code inherited} (the agent's environment). */
    public static ChildEnvironment of(Map<String, String> inherited, Credentials credentials, Collection<Path> roots) {
        return new ChildEnvironment(inherited, credentials, roots);
    }

    /** Children started outside a session: the agent's own environment and the credential name rules. */
    public static ChildEnvironment ofAgent(Collection<Path> roots) {
        Map<String, String> env = System.getenv();
        return new ChildEnvironment(env, Credentials.of(env), roots);
    }

    private static Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("PAGER", "cat");
        s.put("GIT_PAGER", "cat");
        s.put("GIT_TERMINAL_PROMPT", "0");
        List<String[]> git = List.of(
                new String[] {"core.fsmonitor", "false"},
                new String[] {"safe.bareRepository", "explicit"});
        s.put("GIT_CONFIG_COUNT", Integer.toString(git.size()));
        for (int i = 0; i < git.size(); i++) {
            s.put("GIT_CONFIG_KEY_" + i, git.get(i)[0]);
            s.put("GIT_CONFIG_VALUE_" + i, git.get(i)[1]);
        }
        return Map.copyOf(s);
    }

    public Credentials credentials() { return credentials; }

    /** The same, for a session with other roots. */
    public ChildEnvironment withRoots(Collection<Path> otherRoots) {
        return new ChildEnvironment(inherited, credentials, otherRoots);
    }

    /** The whole environment of a child. */
    public Map<String, String> variables() {
        return variables;
    }

    /**
     * The whole environment of a child whose user declared {@code passed} for it (an MCP server's {@code env} in
     * the editor's list or the user's own mcp.json): those entries go on top, as given.
     */
    public Map<String, String> variables(Map<String, String> passed) {
        if (passed.isEmpty()) return variables;
        Map<String, String> all = new LinkedHashMap<>(variables);
        all.putAll(passed);
        return all;
    }

    /** {@code entries} without those that are credentials (for entries a project, not the user, declared). */
    public Map<String, String> withoutCredentials(Map<String, String> entries) {
        Map<String, String> out = new LinkedHashMap<>();
        entries.forEach((name, value) -> {
            if (!credentials.hides(name, value)) out.put(name, value);
        });
        return out;
    }

    /** Whether {@code text} (an argument, a command) holds a known secret. */
    public boolean holdsSecret(String text) {
        return credentials.holdsSecret(text);
    }

    /**
     * What to ask an ACP client's terminal to set: it starts from the client's environment, which the agent can
     * only add to, so every credential variable the agent knows of is set to the empty string, then
     * {@link #SETTINGS}.
     */
    public Map<String, String> forClientTerminal() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : credentials.keyVariables()) if (!credentials.passEnv().contains(name)) out.put(name, "");
        inherited.forEach((name, value) -> {
            if (credentials.hides(name, value) && !name.startsWith("BASH_FUNC_")) out.put(name, "");
        });
        out.putAll(SETTINGS);
        return out;
    }

    private Map<String, String> build() {
        Map<String, String> out = new LinkedHashMap<>();
        inherited.forEach((name, value) -> {
            boolean passed = credentials.passEnv().contains(name);
            if (!passed && isUnsafe(name)) return;
            if (credentials.hides(name, value)) return;
            if (PATH_LISTS.contains(name)) value = outsideRoots(value);
            if (value != null) out.put(name, value);
        });
        out.putAll(SETTINGS);
        return Map.copyOf(out);
    }

    private static boolean isUnsafe(String name) {
        if (UNSAFE.contains(name)) return true;
        for (String prefix : UNSAFE_PREFIXES) if (name.startsWith(prefix)) return true;
        return false;
    }

    /** The entries of a path list that are absolute and outside every root; null when none is left. */
    private String outsideRoots(String list) {
        List<String> kept = new ArrayList<>();
        for (String entry : list.split(File.pathSeparator, -1)) {
            if (isOutsideRoots(entry)) kept.add(entry);
        }
        return kept.isEmpty() ? null : String.join(File.pathSeparator, kept);
    }

    private boolean isOutsideRoots(String entry) {
        Path p;
        try {
            p = Path.of(entry);
        } catch (InvalidPathException e) {
            return false;
        }
        if (entry.isEmpty() || !p.isAbsolute()) return false; // "" and "." mean the current directory
        Path normal = p.normalize();
        Path real = realPath(normal);
        for (Path root : roots) {
            Path r = root.toAbsolutePath().normalize();
            if (normal.startsWith(r) || real.startsWith(r) || real.startsWith(realPath(r))) return false;
        }
        return true;
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException | SecurityException e) {
            return p;
        }
    }

    @Override
    public String toString() {
        return "ChildEnvironment[" + variables.size() + " variables, roots=" + roots + ", " + credentials + "]";
    }
}
