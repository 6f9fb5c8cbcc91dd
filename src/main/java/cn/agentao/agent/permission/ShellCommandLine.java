package cn.agentao.agent.permission;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A bash command line split into its simple commands, for judging what it would run. Not a full bash parser,
 * but total (never throws) and biased towards finding commands: every part of a list ({@code ;}, {@code &},
 * {@code &&}, {@code ||}, newlines), of a pipeline ({@code |}, {@code |&}), of a subshell or group, and of every
 * command substitution ({@code $(..)}, backticks, {@code <(..)}, {@code >(..)}, also inside double quotes and
 * unquoted here-documents) becomes one {@link SimpleCommand}.
 *
 * <p>Words are unquoted (quotes and backslashes removed, as the shell would); parameter expansions and
 * substitutions are kept as their source text ({@code $HOME}, {@code $(pwd)}) since their value is unknown.
 *
 * <p>{@link #effectiveCommands()} additionally looks through wrappers ({@code sudo}, {@code env}, {@code nice},
 * {@code xargs}, {@code find -exec}, ...) and into {@code bash -c 'script'} and {@code eval}.
 */
public final class ShellCommandLine {

    /** A redirection such as {@code > out.txt} ({@code operator} includes any fd number, e.g. {@code 2>}). */
    public record Redirect(String operator, String target) {}

    /**
     * One simple command.
     *
     * @param assignments leading {@code NAME=value} words
     * @param words       the command name and its arguments, unquoted
     * @param globbed     per word: whether it holds an unquoted {@code * ? [ {} the shell would expand
     * @param privileged  set by {@link #effectiveCommands()} when reached through sudo, doas, su or pkexec
     */
    public record SimpleCommand(List<String> assignments, List<String> words, List<Boolean> globbed,
                                List<Redirect> redirects, boolean privileged) {
        public SimpleCommand {
            assignments = List.copyOf(assignments);
            words = List.copyOf(words);
            globbed = List.copyOf(globbed);
            redirects = List.copyOf(redirects);
            if (globbed.size() != words.size()) throw new IllegalArgumentException("globbed must match words");
        }

        /** The base name of the command ({@code /bin/rm} gives {@code rm}), or "" when there is none. */
        public String program() {
            if (words.isEmpty()) return "";
            String w = words.get(0);
            int slash = w.lastIndexOf('/');
            return slash >= 0 && slash < w.length() - 1 ? w.substring(slash + 1) : w;
        }

        public List<String> args() { return words.isEmpty() ? List.of() : words.subList(1, words.size()); }

        /** Normalized text: words (and redirections) separated by single spaces; what rules match against. */
        public String text() {
            StringBuilder sb = new StringBuilder();
            for (String a : assignments) sb.append(sb.isEmpty() ? "" : " ").append(a);
            for (String w : words) sb.append(sb.isEmpty() ? "" : " ").append(w);
            for (Redirect r : redirects) sb.append(sb.isEmpty() ? "" : " ").append(r.operator()).append(' ').append(r.target());
            return sb.toString();
        }

        /** The command formed by words {@code from} (inclusive) to {@code to} (exclusive), e.g. after a wrapper. */
        SimpleCommand part(int from, int to, boolean privileged) {
            return new SimpleCommand(List.of(), words.subList(from, to), globbed.subList(from, to),
                    from == 0 ? redirects : List.of(), this.privileged || privileged);
        }

        SimpleCommand asPrivileged() {
            return new SimpleCommand(assignments, words, globbed, redirects, true);
        }
    }

    private static final Set<String> LEADING_RESERVED = Set.of(
            "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time", "esac");
    private static final Set<String> SHELLS = Set.of("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox");
    private static final Set<String> PRIVILEGE = Set.of("sudo", "doas", "su", "pkexec", "run0");
    private static final int MAX_DEPTH = 8;

    private final String source;
    private final List<SimpleCommand> commands;

    private ShellCommandLine(String source, List<SimpleCommand> commands) {
        this.source = source;
        this.commands = List.copyOf(commands);
    }

    public static ShellCommandLine parse(String line) {
        List<SimpleCommand> out = new ArrayList<>();
        Parser p = new Parser(line, out, 0);
        p.parseUntil((char) 0);
        return new ShellCommandLine(line, out);
    }

    public String source() { return source; }

    /** Every simple command, in source order, nested substitutions included (after the command holding them). */
    public List<SimpleCommand> commands() { return commands; }

    /**
     * {@link #commands()} with wrappers looked through: {@code sudo rm x} yields {@code rm x} (privileged),
     * {@code bash -c 'a; b'} yields {@code a} and {@code b}, {@code find . -exec rm {} ;} yields {@code rm {} ;}.
     * The wrapper command itself is kept too, so nothing is hidden.
     */
    public List<SimpleCommand> effectiveCommands() {
        List<SimpleCommand> out = new ArrayList<>();
        for (SimpleCommand c : commands) expand(c, out, 0);
        return out;
    }

    private static void expand(SimpleCommand c, List<SimpleCommand> out, int depth) {
        out.add(c);
        if (depth >= MAX_DEPTH) return;
        List<String> w = c.words();
        if (w.isEmpty()) return;
        String prog = c.program();
        // interpreters given a script on the command line
        if (SHELLS.contains(prog) || prog.equals("su")) {
            for (int i = 1; i < w.size() - 1; i++) {
                String a = w.get(i);
                if (a.equals("-c") || (a.startsWith("-") && !a.startsWith("--") && a.indexOf('c') > 0)) {
                    boolean priv = c.privileged() || prog.equals("su");
                    for (SimpleCommand inner : parse(w.get(i + 1)).commands()) {
                        expand(priv ? inner.asPrivileged() : inner, out, depth + 1);
                    }
                    break;
                }
            }
            if (prog.equals("busybox") && w.size() > 1) expand(c.part(1, w.size(), false), out, depth + 1);
            return;
        }
        if (prog.equals("eval")) {
            for (SimpleCommand inner : parse(String.join(" ", w.subList(1, w.size()))).commands()) {
                expand(c.privileged() ? inner.asPrivileged() : inner, out, depth + 1);
            }
            return;
        }
        if (prog.equals("find")) {
            for (int i = 1; i < w.size() - 1; i++) {
                String a = w.get(i);
                if (a.equals("-exec") || a.equals("-execdir") || a.equals("-ok") || a.equals("-okdir")) {
                    int end = i + 1;
                    while (end < w.size() && !w.get(end).equals(";") && !w.get(end).equals("+")) end++;
                    if (end > i + 1) expand(c.part(i + 1, end, false), out, depth + 1);
                    i = end;
                }
            }
            return;
        }
        int skip = wrapperArgs(prog, w);
        if (skip > 0 && skip < w.size()) {
            expand(c.part(skip, w.size(), PRIVILEGE.contains(prog)), out, depth + 1);
        }
    }

    /**
     * For a command that runs another command given as its trailing words, the index of that command's name;
     * 0 when {@code prog} is no such wrapper.
     */
    private static int wrapperArgs(String prog, List<String> w) {
        int i = 1;
        switch (prog) {
            case "sudo", "doas", "pkexec", "run0" -> {
                while (i < w.size() && w.get(i).startsWith("-")) {
                    String a = w.get(i++);
                    if (a.equals("--")) break;
                    if (a.matches("-[ugCDhpTrt]|--(user|group|chdir|prompt|close-from|role|type|host)") && i < w.size()) i++;
                }
            }
            case "env" -> {
                while (i < w.size()) {
                    String a = w.get(i);
                    if (a.equals("--")) { i++; break; }
                    if (a.matches("-[uCS]|--(unset|chdir|split-string)")) { i += 2; continue; }
                    if (a.startsWith("-") || a.matches("[A-Za-z_][A-Za-z0-9_]*=.*")) { i++; continue; }
                    break;
                }
            }
            case "nice", "ionice", "stdbuf", "chrt", "taskset", "setsid", "nohup", "time", "command", "exec",
                 "builtin", "unbuffer", "caffeinate", "flock", "chroot", "watch", "strace", "ltrace", "script" -> {
                while (i < w.size() && w.get(i).startsWith("-")) {
                    String a = w.get(i++);
                    if (a.equals("--")) break;
                    if (a.matches("-[nctpoeiSs]") && i < w.size() && !prog.equals("time")) i++;
                }
                // a leading numeric argument (nice 10 cmd, taskset 0x3 cmd, chrt 50 cmd)
                if ((prog.equals("taskset") || prog.equals("chrt")) && i < w.size()) i++;
                if (prog.equals("chroot") && i < w.size()) i++;
            }
            case "timeout" -> {
                while (i < w.size() && w.get(i).startsWith("-")) {
                    String a = w.get(i++);
                    if (a.matches("-[sk]|--(signal|kill-after)") && i < w.size()) i++;
                }
                i++; // the duration
            }
            case "xargs", "parallel" -> {
                while (i < w.size() && w.get(i).startsWith("-")) {
                    String a = w.get(i++);
                    if (a.equals("--")) break;
                    if (a.matches("-[IiLlnPdsEa]|--(replace|max-lines|max-args|max-procs|delimiter|arg-file|eof)")
                            && i < w.size()) i++;
                }
            }
            default -> { return 0; }
        }
        return i;
    }

    /** Total, recursive scanner; adds each finished simple command to {@code out}. */
    private static final class Parser {
        private final String s;
        private final List<SimpleCommand> out;
        private final int depth;
        private int pos;
        private int parenDepth;

        private final List<String> assignments = new ArrayList<>();
        private final List<String> words = new ArrayList<>();
        private final List<Boolean> globbed = new ArrayList<>();
        private final List<Redirect> redirects = new ArrayList<>();
        private final List<SimpleCommand> nested = new ArrayList<>();
        private final List<String[]> pendingHeredocs = new ArrayList<>(); // {delimiter, quoted?, dash?}
        private StringBuilder word = new StringBuilder();
        private boolean inWord;
        private int quotedFrom = -1; // index in word of the first quoted character, -1 when none
        private boolean unquotedWildcard;
        private String pendingRedirect;

        Parser(String s, List<SimpleCommand> out, int depth) {
            this.s = s;
            this.out = out;
            this.depth = depth;
        }

        /** Parses until {@code stop} ({@code )} or a backtick) or the end; returns the index after the stop. */
        int parseUntil(char stop) {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (stop == ')' && c == ')' && parenDepth == 0) {
                    endCommand();
                    return ++pos;
                }
                if (stop == '`' && c == '`') {
                    endCommand();
                    return ++pos;
                }
                switch (c) {
                    case ' ', '\t', '\r' -> { endWord(); pos++; }
                    case '\n' -> { endCommand(); pos++; skipHeredocBodies(); }
                    case ';' -> { endCommand(); pos++; }
                    case '&' -> {
                        if (peek(1) == '>') { // &> file, &>> file
                            endWord();
                            int start = pos;
                            pos += peek(2) == '>' ? 3 : 2;
                            pendingRedirect = s.substring(start, pos);
                        } else {
                            endCommand();
                            pos += peek(1) == '&' ? 2 : 1;
                        }
                    }
                    case '|' -> { endCommand(); pos += (peek(1) == '|' || peek(1) == '&') ? 2 : 1; }
                    case '(' -> {
                        endCommand();
                        parenDepth++;
                        pos++;
                    }
                    case ')' -> {
                        endCommand();
                        if (parenDepth > 0) parenDepth--;
                        pos++;
                    }
                    case '<', '>' -> redirect(c);
                    case '\'' -> {
                        int end = s.indexOf('\'', pos + 1);
                        if (end < 0) end = s.length();
                        markQuoted();
                        word.append(s, pos + 1, end);
                        inWord = true;
                        pos = Math.min(end + 1, s.length());
                    }
                    case '"' -> {
                        pos++;
                        markQuoted();
                        doubleQuoted(true);
                        inWord = true;
                    }
                    case '\\' -> {
                        if (peek(1) == '\n') {
                            pos += 2;
                        } else {
                            markQuoted();
                            if (pos + 1 < s.length()) word.append(s.charAt(pos + 1));
                            inWord = true;
                            pos += 2;
                        }
                    }
                    case '$' -> dollar();
                    case '`' -> backtick();
                    case '#' -> {
                        if (!inWord) {
                            while (pos < s.length() && s.charAt(pos) != '\n') pos++;
                        } else {
                            word.append(c);
                            pos++;
                        }
                    }
                    default -> {
                        if ("*?[{".indexOf(c) >= 0) unquotedWildcard = true;
                        word.append(c);
                        inWord = true;
                        pos++;
                    }
                }
            }
            endCommand();
            return pos;
        }

        private char peek(int ahead) {
            int i = pos + ahead;
            return i < s.length() ? s.charAt(i) : 0;
        }

        private void redirect(char c) {
            if (peek(1) == '(') { // process substitution <(..) or >(..)
                int start = pos;
                pos += 2;
                nestedParse(')');
                word.append(s, start, pos);
                inWord = true;
                return;
            }
            String fd = "";
            if (inWord && quotedFrom < 0 && word.toString().matches("\\d+|\\{[A-Za-z_][A-Za-z0-9_]*}")) {
                fd = word.toString();
                word.setLength(0);
                inWord = false;
            } else {
                endWord();
            }
            int start = pos;
            pos++;
            if (c == '>') {
                if (peek(0) == '>' || peek(0) == '|' || peek(0) == '&') pos++;
            } else {
                if (peek(0) == '<') {
                    pos++;
                    if (peek(0) == '<' || peek(0) == '-') pos++;
                } else if (peek(0) == '>' || peek(0) == '&') {
                    pos++;
                }
            }
            pendingRedirect = fd + s.substring(start, pos);
        }

        private void dollar() {
            int start = pos;
            char next = peek(1);
            if (next == '(') {
                pos += 2;
                nestedParse(')');
                word.append(s, start, pos);
                inWord = true;
            } else if (next == '{') {
                int end = matchingBrace(pos + 1);
                scanExpansions(s.substring(pos + 2, Math.max(pos + 2, end)));
                pos = Math.min(end + 1, s.length());
                word.append(s, start, pos);
                inWord = true;
            } else if (next == '\'') { // $'..' ANSI-C quoting
                pos += 2;
                StringBuilder lit = new StringBuilder();
                while (pos < s.length() && s.charAt(pos) != '\'') {
                    if (s.charAt(pos) == '\\' && pos + 1 < s.length()) pos++;
                    lit.append(s.charAt(pos++));
                }
                pos = Math.min(pos + 1, s.length());
                markQuoted();
                word.append(lit);
                inWord = true;
            } else {
                word.append('$');
                inWord = true;
                pos++;
            }
        }

        private void backtick() {
            int start = pos;
            pos++;
            nestedParse('`');
            word.append(s, start, pos);
            inWord = true;
        }

        private void nestedParse(char stop) {
            Parser inner = new Parser(s, nested, depth + 1);
            inner.pos = pos;
            pos = depth < MAX_DEPTH * 4 ? inner.parseUntil(stop) : skipTo(stop);
        }

        private int skipTo(char stop) {
            int i = s.indexOf(stop, pos);
            return i < 0 ? s.length() : i + 1;
        }

        private int matchingBrace(int open) {
            int d = 0;
            for (int i = open; i < s.length(); i++) {
                if (s.charAt(i) == '{') d++;
                else if (s.charAt(i) == '}' && --d == 0) return i;
            }
            return s.length();
        }

        /** Inside double quotes: only {@code $(..)}, backticks and {@code \} are special. */
        private void doubleQuoted(boolean stopAtQuote) {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == '"' && stopAtQuote) {
                    pos++;
                    return;
                }
                if (c == '\\' && pos + 1 < s.length() && "$`\"\\\n".indexOf(s.charAt(pos + 1)) >= 0) {
                    if (s.charAt(pos + 1) != '\n') word.append(s.charAt(pos + 1));
                    pos += 2;
                } else if (c == '$' && (peek(1) == '(' || peek(1) == '{')) {
                    dollar();
                } else if (c == '`') {
                    backtick();
                } else {
                    word.append(c);
                    pos++;
                }
            }
        }

        /** Finds the substitutions in text that the shell expands (double-quote rules), ignoring the rest. */
        private void scanExpansions(String text) {
            if (depth >= MAX_DEPTH * 4) return;
            Parser inner = new Parser(text, nested, depth + 1);
            inner.doubleQuoted(false);
            nested.addAll(inner.nested);
        }

        private void markQuoted() {
            if (quotedFrom < 0) quotedFrom = word.length();
        }

        private void skipHeredocBodies() {
            if (pendingHeredocs.isEmpty()) return;
            List<String[]> docs = new ArrayList<>(pendingHeredocs);
            pendingHeredocs.clear();
            for (String[] doc : docs) {
                StringBuilder body = new StringBuilder();
                while (pos < s.length()) {
                    int eol = s.indexOf('\n', pos);
                    if (eol < 0) eol = s.length();
                    String line = s.substring(pos, eol);
                    pos = Math.min(eol + 1, s.length());
                    String cmp = doc[2] != null ? line.replaceFirst("^\t+", "") : line;
                    if (cmp.equals(doc[0])) break;
                    body.append(line).append('\n');
                }
                if (doc[1] == null) scanExpansions(body.toString());
            }
        }

        private void endWord() {
            if (!inWord) return;
            String w = word.toString();
            if (pendingRedirect != null) {
                String op = pendingRedirect;
                pendingRedirect = null;
                redirects.add(new Redirect(op, w));
                if (op.endsWith("<<") || op.endsWith("<<-")) {
                    pendingHeredocs.add(new String[]{w, quotedFrom >= 0 ? "q" : null, op.endsWith("-") ? "-" : null});
                }
            } else if (words.isEmpty() && w.matches("[A-Za-z_][A-Za-z0-9_]*(\\[[^]]*])?\\+?=.*")
                    && (quotedFrom < 0 || quotedFrom > w.indexOf('='))) {
                assignments.add(w);
            } else if (!(words.isEmpty() && quotedFrom < 0 && LEADING_RESERVED.contains(w))) {
                words.add(w);
                globbed.add(unquotedWildcard);
            }
            word = new StringBuilder();
            inWord = false;
            quotedFrom = -1;
            unquotedWildcard = false;
        }

        private void endCommand() {
            endWord();
            if (!words.isEmpty() || !assignments.isEmpty() || !redirects.isEmpty()) {
                out.add(new SimpleCommand(assignments, words, globbed, redirects, false));
            }
            out.addAll(nested);
            nested.clear();
            assignments.clear();
            words.clear();
            globbed.clear();
            redirects.clear();
            pendingRedirect = null;
        }
    }
}
