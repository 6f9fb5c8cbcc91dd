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

    /**
     * A redirection such as {@code > out.txt} ({@code operator} includes any fd number, e.g. {@code 2>}). For a
     * here-document ({@code <<EOF}) the target is the delimiter and {@code body} its text; for a here-string
     * ({@code <<<}) the target is the word.
     */
    public record Redirect(String operator, String target, String body) {
        public Redirect(String operator, String target) {
            this(operator, target, null);
        }

        boolean isHereDocument() { return operator.endsWith("<<") || operator.endsWith("<<-"); }

        boolean isHereString() { return operator.endsWith("<<<"); }
    }

    /**
     * One simple command.
     *
     * @param assignments leading {@code NAME=value} words
     * @param words       the command name and its arguments, unquoted
     * @param globbed     per word: whether it holds an unquoted {@code * ? [ {} the shell would expand
     * @param privileged  set by {@link #effectiveCommands()} when reached through sudo, doas, su or pkexec
     * @param pipedFrom   the command whose output is this one's input through a pipe: {@link #UNKNOWN_SOURCE}
     *                    when that is no simple command (a subshell, a group), null when there is no pipe
     */
    public record SimpleCommand(List<String> assignments, List<String> words, List<Boolean> globbed,
                                List<Redirect> redirects, boolean privileged, SimpleCommand pipedFrom) {
        public SimpleCommand(List<String> assignments, List<String> words, List<Boolean> globbed,
                             List<Redirect> redirects, boolean privileged) {
            this(assignments, words, globbed, redirects, privileged, null);
        }

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

        /**
         * The command formed by words {@code from} (inclusive) to {@code to} (exclusive), e.g. after a wrapper;
         * with {@code sameIo} it keeps this command's redirections and pipe (a wrapper's child inherits them).
         */
        SimpleCommand part(int from, int to, boolean privileged, boolean sameIo) {
            return new SimpleCommand(List.of(), words.subList(from, to), globbed.subList(from, to),
                    sameIo || from == 0 ? redirects : List.of(), this.privileged || privileged,
                    sameIo ? pipedFrom : null);
        }

        /** This command with {@code extra} words appended (unglobbed), e.g. what xargs adds from its input. */
        SimpleCommand plus(List<String> extra) {
            List<String> w = new ArrayList<>(words);
            w.addAll(extra);
            List<Boolean> g = new ArrayList<>(globbed);
            for (int i = 0; i < extra.size(); i++) g.add(false);
            return new SimpleCommand(assignments, w, g, redirects, privileged, pipedFrom);
        }

        SimpleCommand asPrivileged() {
            return new SimpleCommand(assignments, words, globbed, redirects, true, pipedFrom);
        }
    }

    /** Stands for the producer of a pipe that is no simple command ({@code (a; b) | sh}). */
    public static final SimpleCommand UNKNOWN_SOURCE = new SimpleCommand(List.of(), List.of(), List.of(), List.of(), false);

    private static final Set<String> LEADING_RESERVED = Set.of(
            "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time", "esac");
    static final int MAX_DEPTH = 8;

    private final String source;
    private final List<SimpleCommand> commands;
    private EffectiveCommands expansion;

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
     * {@link #commands()} with wrappers looked through and scripts looked into ({@link EffectiveCommands}):
     * {@code sudo rm x} yields {@code rm x} (privileged), {@code bash -c 'a; b'} yields {@code a} and {@code b},
     * {@code find . -exec rm {} ;} yields {@code rm {} ;}, {@code echo 'rm x' | sh} yields {@code rm x}.
     * The wrapper command itself is kept too, so nothing is hidden.
     */
    public List<SimpleCommand> effectiveCommands() {
        return expansion().commands();
    }

    /** This line's text and the text of every script found inside it ({@code bash -c}, here-strings into sh, ...). */
    public List<String> scripts() {
        return expansion().scripts();
    }

    private EffectiveCommands expansion() {
        if (expansion == null) expansion = EffectiveCommands.of(this);
        return expansion;
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
        private int heredocResume = -1; // where parsing goes on after the bodies of this line's here-documents
        private SimpleCommand pipeSource; // the producer of the pipe into the next command, if any
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
                    case '\n' -> {
                        endPipeline();
                        pos++;
                        if (heredocResume > pos) pos = heredocResume;
                        heredocResume = -1;
                    }
                    case ';' -> { endPipeline(); pos++; }
                    case '&' -> {
                        if (peek(1) == '>') { // &> file, &>> file
                            endWord();
                            int start = pos;
                            pos += peek(2) == '>' ? 3 : 2;
                            pendingRedirect = s.substring(start, pos);
                        } else {
                            endPipeline();
                            pos += peek(1) == '&' ? 2 : 1;
                        }
                    }
                    case '|' -> {
                        if (peek(1) == '|') {
                            endPipeline();
                            pos += 2;
                        } else {
                            SimpleCommand producer = endCommand();
                            pipeSource = producer != null ? producer : UNKNOWN_SOURCE;
                            pos += peek(1) == '&' ? 2 : 1;
                        }
                    }
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

        /**
         * Reads the body of a here-document whose operator was just read: it starts on the line after this one
         * (after the bodies of earlier here-documents of the line) and ends at the delimiter line.
         */
        private String readHeredocBody(String delimiter, boolean dash, boolean quoted) {
            int start = heredocResume;
            if (start < 0) {
                int eol = s.indexOf('\n', pos);
                start = eol < 0 ? s.length() : eol + 1;
            }
            StringBuilder body = new StringBuilder();
            int at = start;
            while (at < s.length()) {
                int eol = s.indexOf('\n', at);
                if (eol < 0) eol = s.length();
                String line = s.substring(at, eol);
                at = Math.min(eol + 1, s.length());
                String cmp = dash ? line.replaceFirst("^\t+", "") : line;
                if (cmp.equals(delimiter)) break;
                body.append(line).append('\n');
            }
            heredocResume = at;
            if (!quoted) scanExpansions(body.toString());
            return body.toString();
        }

        private void endWord() {
            if (!inWord) return;
            String w = word.toString();
            if (pendingRedirect != null) {
                String op = pendingRedirect;
                pendingRedirect = null;
                Redirect r = new Redirect(op, w);
                if (r.isHereDocument()) r = new Redirect(op, w, readHeredocBody(w, op.endsWith("-"), quotedFrom >= 0));
                redirects.add(r);
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

        /** Ends the simple command being read; returns it (null when it was empty). */
        private SimpleCommand endCommand() {
            endWord();
            SimpleCommand made = null;
            if (!words.isEmpty() || !assignments.isEmpty() || !redirects.isEmpty()) {
                made = new SimpleCommand(assignments, words, globbed, redirects, false, pipeSource);
                out.add(made);
                pipeSource = null;
            }
            out.addAll(nested);
            nested.clear();
            assignments.clear();
            words.clear();
            globbed.clear();
            redirects.clear();
            pendingRedirect = null;
            return made;
        }

        /** Ends the command and the pipeline it is part of ({@code ;}, {@code &&}, {@code ||}, {@code &}, newline). */
        private void endPipeline() {
            endCommand();
            pipeSource = null;
        }
    }
}
