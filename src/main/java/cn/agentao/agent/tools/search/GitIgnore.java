package cn.agentao.agent.tools.search;

import cn.agentao.agent.permission.Glob;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rules of one {@code .gitignore} (or {@code .git/info/exclude}), scoped to the directory holding it.
 * Supported as git does: blank lines and {@code #} comments, {@code \#} / {@code \!} escapes, trailing spaces
 * (unless escaped), {@code !} negation, a trailing {@code /} for directories only, a leading or middle
 * {@code /} anchoring the pattern to this directory (otherwise it matches a name at any depth), {@code *},
 * {@code ?}, {@code [...]} within a path segment and {@code **} across segments. The last matching rule wins.
 */
final class GitIgnore {

    /**
     * One rule; {@code literal} or {@code suffix} set when the pattern is a plain name or {@code *} and a plain
     * tail (most rules: {@code target}, {@code *.log}), tested without the regular expression.
     */
    private record Rule(Pattern pattern, String literal, String suffix, boolean negated, boolean dirOnly, boolean anchored) {
        static Rule of(String glob, boolean negated, boolean dirOnly, boolean anchored) {
            String literal = plain(glob) ? glob : null;
            String suffix = !anchored && glob.startsWith("*") && glob.length() > 1 && plain(glob.substring(1))
                    ? glob.substring(1) : null;
            return new Rule(Glob.path(glob), literal, suffix, negated, dirOnly, anchored);
        }

        private static boolean plain(String glob) {
            for (int i = 0; i < glob.length(); i++) if ("*?[]{}\\,".indexOf(glob.charAt(i)) >= 0) return false;
            return true;
        }

        boolean matches(String subject) {
            if (literal != null) return literal.equals(subject);
            if (suffix != null) return subject.endsWith(suffix);
            return pattern.matcher(subject).matches();
        }
    }

    private final Path base;
    private final List<Rule> rules;

    private GitIgnore(Path base, List<Rule> rules) {
        this.base = base;
        this.rules = rules;
    }

    Path base() { return base; }

    /** Reads {@code file} as rules for {@code base}; an unreadable file has no rules. */
    static GitIgnore load(Path base, Path file) {
        try {
            return parse(base, Files.readAllLines(file));
        } catch (IOException e) {
            return new GitIgnore(base, List.of());
        }
    }

    static GitIgnore parse(Path base, List<String> lines) {
        List<Rule> rules = new ArrayList<>();
        for (String line : lines) {
            String p = stripTrailingSpaces(line);
            if (p.isEmpty() || p.startsWith("#")) continue;
            boolean negated = false;
            if (p.startsWith("!")) {
                negated = true;
                p = p.substring(1);
            } else if (p.startsWith("\\!") || p.startsWith("\\#")) {
                p = p.substring(1);
            }
            boolean dirOnly = p.endsWith("/") && !p.endsWith("\\/");
            if (dirOnly) p = p.substring(0, p.length() - 1);
            if (p.isEmpty()) continue;
            boolean anchored = p.contains("/");
            if (p.startsWith("/")) p = p.substring(1);
            rules.add(Rule.of(p, negated, dirOnly, anchored));
        }
        return new GitIgnore(base, List.copyOf(rules));
    }

    private static String stripTrailingSpaces(String line) {
        int end = line.length();
        while (end > 0 && line.charAt(end - 1) == ' ' && !(end > 1 && line.charAt(end - 2) == '\\')) end--;
        String s = line.substring(0, end);
        return s.endsWith("\\ ") ? s.substring(0, s.length() - 2) + " " : s;
    }

    /**
     * The verdict of these rules for a path below {@link #base()}: TRUE ignored, FALSE re-included by a
     * negation, null when no rule matches.
     *
     * @param relative the path relative to the base, '/'-separated
     */
    Boolean match(String relative, boolean isDirectory) {
        String name = null;
        for (int i = rules.size() - 1; i >= 0; i--) {
            Rule r = rules.get(i);
            if (r.dirOnly && !isDirectory) continue;
            if (!r.anchored && name == null) name = relative.substring(relative.lastIndexOf('/') + 1);
            if (r.matches(r.anchored ? relative : name)) return !r.negated;
        }
        return null;
    }
}
