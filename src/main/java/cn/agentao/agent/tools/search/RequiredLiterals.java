package cn.agentao.agent.tools.search;

import java.util.ArrayList;
import java.util.List;

/**
 * The literal strings a Java regular expression needs: every match contains at least one of them, so text
 * without any of them cannot match and need not be decoded or given to the regex. Read conservatively: a
 * construct it does not know (inline flags, comments mode, anything odd) means "nothing can be told" rather
 * than a guess, so the answer is always sound, only sometimes absent.
 */
final class RequiredLiterals {
    /** More alternatives than this are not worth a prefilter. */
    static final int MAX_ALTERNATIVES = 8;

    private final String re;
    private int i;
    /** How deep in groups the parse is, and the branches seen at the top. */
    private int depth;
    private int topBranches;
    /** Each literal run and required group of the top level: every match holds one member of each. */
    private final List<List<String>> every = new ArrayList<>();

    private RequiredLiterals(String re) {
        this.re = re;
    }

    /**
     * Literals one of which every match of {@code regex} contains, or null when none can be told. With
     * {@code ignoreCase} (Java's CASE_INSENSITIVE | UNICODE_CASE) the literals are ASCII only and free of
     * letters that have a non-ASCII case variant (such as k and the Kelvin sign), to be compared ignoring ASCII
     * case.
     */
    static List<String> of(String regex, boolean ignoreCase) {
        try {
            RequiredLiterals p = new RequiredLiterals(regex);
            List<String> found = p.alternation();
            if (p.i != regex.length() || found == null) return null;
            return usable(found, ignoreCase);
        } catch (GiveUp | RuntimeException e) {
            return null;
        }
    }

    /**
     * Sets of literals such that every match of {@code regex} holds one of each set (so a text that lacks all of
     * one set cannot match): {@link #of} first, then, for a regex of one branch, each of its other literal runs and
     * required groups ({@code synchronized\s+void\s+\w+Lock}: synchronized, void, Lock). Null when {@link #of} is.
     */
    static List<List<String>> every(String regex, boolean ignoreCase) {
        try {
            RequiredLiterals p = new RequiredLiterals(regex);
            List<String> found = p.alternation();
            List<String> best = p.i != regex.length() || found == null ? null : usable(found, ignoreCase);
            if (best == null) return null;
            List<List<String>> out = new ArrayList<>();
            out.add(best);
            if (p.topBranches != 1) return List.copyOf(out);
            for (List<String> set : p.every) {
                List<String> u = usable(set, ignoreCase);
                if (u != null && !out.contains(u)) out.add(u);
            }
            return List.copyOf(out);
        } catch (GiveUp | RuntimeException e) {
            return null;
        }
    }

    /** The literals as the search compares them, or null when one cannot serve. */
    private static List<String> usable(List<String> found, boolean ignoreCase) {
        List<String> out = new ArrayList<>();
        for (String s : found) {
            String usable = ignoreCase ? longestCaseSafePiece(s) : s;
            if (usable.isEmpty() || !encodable(usable)) return null;
            out.add(usable);
        }
        return out.isEmpty() || out.size() > MAX_ALTERNATIVES ? null : List.copyOf(out);
    }

    private static final class GiveUp extends Exception {
        GiveUp() { super(null, null, false, false); }
    }

    /** Branches separated by '|', up to the end or a ')'. */
    private List<String> alternation() throws GiveUp {
        List<String> all = new ArrayList<>();
        while (true) {
            if (depth == 0) topBranches++;
            List<String> branch = sequence();
            if (branch == null) {
                all = null;
            } else if (all != null) {
                all.addAll(branch);
            }
            if (i < re.length() && re.charAt(i) == '|') {
                i++;
                continue;
            }
            return all;
        }
    }

    /** One branch: the best of its literal runs and required groups. */
    private List<String> sequence() throws GiveUp {
        List<String> best = null;
        StringBuilder run = new StringBuilder();
        while (i < re.length()) {
            char c = re.charAt(i);
            if (c == '|' || c == ')') break;
            int atomStart = run.length();
            List<String> group = null;
            boolean literal = false;
            switch (c) {
                case '\\' -> {
                    if (i + 1 >= re.length()) throw new GiveUp();
                    char e = re.charAt(i + 1);
                    if (e == 'Q') {
                        int end = re.indexOf("\\E", i + 2);
                        String quoted = end < 0 ? re.substring(i + 2) : re.substring(i + 2, end);
                        i = end < 0 ? re.length() : end + 2;
                        if (quoted.isEmpty()) continue;
                        if (quantifierAt(i)) { // only the last quoted character is repeated
                            run.append(quoted, 0, quoted.length() - 1);
                            atomStart = run.length();
                            run.append(quoted.charAt(quoted.length() - 1));
                        } else {
                            run.append(quoted);
                            continue;
                        }
                        literal = true;
                    } else if (Character.isLetterOrDigit(e)) {
                        skipEscape();
                        best = take(best, run);
                        run.setLength(0);
                        atomStart = 0;
                    } else {
                        run.append(e);
                        i += 2;
                        literal = true;
                    }
                }
                case '[' -> {
                    skipClass();
                    best = take(best, run);
                    run.setLength(0);
                    atomStart = 0;
                }
                case '(' -> {
                    best = take(best, run);
                    run.setLength(0);
                    atomStart = 0;
                    group = group();
                }
                case '.', '^', '$' -> {
                    i++;
                    best = take(best, run);
                    run.setLength(0);
                    atomStart = 0;
                }
                case '*', '+', '?', '{' -> throw new GiveUp(); // a quantifier with nothing before it
                default -> {
                    if (Character.isSurrogate(c)) throw new GiveUp();
                    run.append(c);
                    i++;
                    literal = true;
                }
            }
            if (quantifierAt(i)) {
                boolean optional = quantifier();
                if (literal) {
                    if (optional) run.setLength(atomStart);
                    best = take(best, run);
                    run.setLength(0);
                } else if (group != null && !optional) {
                    best = take(best, group);
                }
            } else if (group != null) {
                best = take(best, group);
            }
        }
        return take(best, run);
    }

    private boolean quantifierAt(int at) {
        if (at >= re.length()) return false;
        char c = re.charAt(at);
        return c == '*' || c == '+' || c == '?' || c == '{';
    }

    /** Reads a quantifier and its lazy/possessive mark; true when it allows zero repetitions. */
    private boolean quantifier() throws GiveUp {
        char c = re.charAt(i);
        boolean optional;
        if (c == '{') {
            int end = re.indexOf('}', i);
            if (end < 0) throw new GiveUp();
            String body = re.substring(i + 1, end);
            String min = body.contains(",") ? body.substring(0, body.indexOf(',')) : body;
            optional = Integer.parseInt(min.strip()) == 0;
            i = end + 1;
        } else {
            optional = c != '+';
            i++;
        }
        if (i < re.length() && (re.charAt(i) == '?' || re.charAt(i) == '+')) i++;
        return optional;
    }

    /** A group from its '(' to its ')'; its literals, or null (lookarounds never count). */
    private List<String> group() throws GiveUp {
        i++;
        boolean counts = true;
        if (i < re.length() && re.charAt(i) == '?') {
            char k = i + 1 < re.length() ? re.charAt(i + 1) : 0;
            if (k == ':' || k == '>') {
                i += 2;
            } else if (k == '=' || k == '!') {
                i += 2;
                counts = false;
            } else if (k == '<' && i + 2 < re.length() && (re.charAt(i + 2) == '=' || re.charAt(i + 2) == '!')) {
                i += 3;
                counts = false;
            } else if (k == '<') {
                int end = re.indexOf('>', i);
                if (end < 0) throw new GiveUp();
                i = end + 1;
            } else {
                throw new GiveUp(); // inline flags such as (?i) or (?x) change how the rest reads
            }
        }
        depth++;
        List<String> inside = alternation();
        depth--;
        if (i >= re.length() || re.charAt(i) != ')') throw new GiveUp();
        i++;
        return counts ? inside : null;
    }

    /** Skips an escape such as \w, \p{L}, \x{1F600}, \k<name>, \0177, \cA or a back reference. */
    private void skipEscape() throws GiveUp {
        char e = re.charAt(i + 1);
        i += 2;
        switch (e) {
            case 'p', 'P', 'x', 'N' -> {
                if (i < re.length() && re.charAt(i) == '{') {
                    int end = re.indexOf('}', i);
                    if (end < 0) throw new GiveUp();
                    i = end + 1;
                } else {
                    i += e == 'x' ? 2 : 1;
                }
            }
            case 'k' -> {
                int end = re.indexOf('>', i);
                if (end < 0) throw new GiveUp();
                i = end + 1;
            }
            case 'u' -> i += 4;
            case 'c' -> i += 1;
            case '0' -> {
                while (i < re.length() && re.charAt(i) >= '0' && re.charAt(i) <= '7') i++;
            }
            default -> {
                while (Character.isDigit(e) && i < re.length() && Character.isDigit(re.charAt(i))) i++;
            }
        }
        if (i > re.length()) throw new GiveUp();
    }

    /** Skips a character class, nested classes and escapes included. */
    private void skipClass() throws GiveUp {
        int depth = 0;
        while (i < re.length()) {
            char c = re.charAt(i);
            if (c == '\\') {
                if (i + 1 < re.length() && re.charAt(i + 1) == 'Q') throw new GiveUp();
                i += 2;
                continue;
            }
            if (c == '[') {
                depth++;
                i++;
                if (i < re.length() && re.charAt(i) == '^') i++;
                if (i < re.length() && re.charAt(i) == ']') throw new GiveUp(); // leading ']' : leave it to the regex
                continue;
            }
            i++;
            if (c == ']' && --depth == 0) return;
        }
        throw new GiveUp();
    }

    /** {@link #better}, noting the run at the top level among {@link #every}. */
    private List<String> take(List<String> best, CharSequence run) {
        if (depth == 0 && !run.isEmpty()) every.add(List.of(run.toString()));
        return better(best, run);
    }

    /** {@link #better}, noting the group at the top level among {@link #every}. */
    private List<String> take(List<String> best, List<String> group) {
        if (depth == 0 && group != null && !group.isEmpty()) every.add(group);
        return better(best, group);
    }

    /** The better of a set of alternatives and a literal run: the one whose shortest member is longest. */
    private static List<String> better(List<String> best, CharSequence run) {
        return run.isEmpty() ? best : better(best, List.of(run.toString()));
    }

    private static List<String> better(List<String> best, List<String> candidate) {
        if (candidate == null || candidate.isEmpty()) return best;
        if (best == null) return candidate;
        return shortest(candidate) > shortest(best) ? candidate : best;
    }

    private static int shortest(List<String> xs) {
        int min = Integer.MAX_VALUE;
        for (String s : xs) min = Math.min(min, s.length());
        return min;
    }

    /** The longest piece of {@code s} that is ASCII and compares the same under Java's Unicode case folding. */
    private static String longestCaseSafePiece(String s) {
        String best = "";
        int start = 0;
        for (int k = 0; k <= s.length(); k++) {
            if (k == s.length() || !CaseSafe.isSafe(s.charAt(k))) {
                if (k - start > best.length()) best = s.substring(start, k);
                start = k + 1;
            }
        }
        return best;
    }

    /** Text containing these cannot be found by its UTF-8 bytes alone. */
    private static boolean encodable(String s) {
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            if (c == '\n' || c == '\r' || c == '\uFFFD' || Character.isSurrogate(c)) return false;
        }
        return true;
    }

    /** ASCII characters with no non-ASCII character that Java's UNICODE_CASE matching takes as equal. */
    private static final class CaseSafe {
        private static final boolean[] SAFE = compute();

        static boolean isSafe(char c) {
            return c < 128 && SAFE[c];
        }

        private static boolean[] compute() {
            boolean[] safe = new boolean[128];
            java.util.Arrays.fill(safe, true);
            for (int cp = 128; cp <= 0xFFFF; cp++) { // no supplementary character folds to ASCII
                int folded = Character.toLowerCase(Character.toUpperCase(cp));
                if (folded < 128) safe[folded] = false;
                int upper = Character.toUpperCase(cp), lower = Character.toLowerCase(cp);
                if (upper < 128) safe[Character.toLowerCase(upper)] = safe[upper] = false;
                if (lower < 128) safe[Character.toUpperCase(lower)] = safe[lower] = false;
            }
            for (char c = 'A'; c <= 'Z'; c++) {
                boolean both = safe[c] && safe[c + 32];
                safe[c] = safe[c + 32] = both;
            }
            return safe;
        }
    }
}
