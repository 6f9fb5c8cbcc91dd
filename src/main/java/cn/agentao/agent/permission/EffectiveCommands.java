package cn.agentao.agent.permission;

import cn.agentao.agent.permission.GnuOptions.Parsed;
import cn.agentao.agent.permission.GnuOptions.Spec;
import cn.agentao.agent.permission.ShellCommandLine.Redirect;
import cn.agentao.agent.permission.ShellCommandLine.SimpleCommand;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The commands a line really runs: its simple commands, plus what they run in turn — the command behind a
 * wrapper ({@code sudo}, {@code env}, {@code nice}, {@code timeout}, {@code xargs}, {@code find -exec}, ...), the
 * script of {@code bash -c}, {@code eval}, {@code env -S}, {@code su -c}, {@code watch}, and a script fed to a shell
 * on its input (a here-string, a here-document, or {@code echo}/{@code printf}/{@code cat} piped into it).
 * {@code xargs} gets the words of its input appended when they are written in the line.
 *
 * <p>What is computed at run time is kept as such: a shell reading a script from a program's output
 * ({@code curl … | sh}) yields a command named {@value #COMPUTED_SCRIPT}, and xargs reading such input gets the
 * operand {@value #COMPUTED_INPUT}, so that checks treat them as unknown values.
 */
final class EffectiveCommands {
    static final String COMPUTED_SCRIPT = "$(script read from a pipe)";
    static final String COMPUTED_INPUT = "$(input read from a pipe)";

    static final Set<String> SHELLS = Set.of("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "yash");
    static final Set<String> PRIVILEGE = Set.of("sudo", "doas", "su", "pkexec", "run0");

    private static final Spec SUDO = Spec.of("ugCDhpTrtU", "user=", "group=", "chdir=", "host=", "prompt=",
            "close-from=", "role=", "type=", "command-timeout=", "other-user=", "preserve-env=?", "shell", "login")
            .stoppingAtOperand();
    private static final Spec RUN0 = Spec.of("uDg", "user=", "group=", "chdir=", "unit=", "property=",
            "description=", "slice=", "nice=", "setenv=", "background=").stoppingAtOperand();
    private static final Spec ENV = Spec.of("uCS", "unset=", "chdir=", "split-string=", "block-signal=?",
            "default-signal=?", "ignore-signal=?", "ignore-environment", "null", "debug", "list-signal-handling")
            .stoppingAtOperand();
    private static final Spec SU = Spec.of("csgGw", "command=", "session-command=", "shell=", "group=",
            "supp-group=", "whitelist-environment=", "login", "pty", "preserve-environment");
    private static final Spec XARGS = new Spec("adEILnPs", "eil", List.of("arg-file=", "delimiter=", "eof=?",
            "replace=?", "max-lines=?", "max-args=", "max-procs=", "max-chars=", "process-slot-var=", "null",
            "no-run-if-empty", "interactive", "verbose", "exit", "open-tty", "show-limits"), true);
    private static final Spec FLOCK = Spec.of("wEc", "timeout=", "conflict-exit-code=", "command=", "shared",
            "exclusive", "unlock", "nonblock", "close", "no-fork", "verbose").stoppingAtOperand();
    private static final Map<String, Spec> WRAPPERS = Map.ofEntries(
            Map.entry("nice", Spec.of("n", "adjustment=").stoppingAtOperand()),
            Map.entry("ionice", Spec.of("cnpPu", "class=", "classdata=", "pid=", "pgid=", "uid=").stoppingAtOperand()),
            Map.entry("stdbuf", Spec.of("ioe", "input=", "output=", "error=").stoppingAtOperand()),
            Map.entry("timeout", Spec.of("sk", "signal=", "kill-after=", "preserve-status", "foreground",
                    "verbose").stoppingAtOperand()),
            Map.entry("time", Spec.of("fo", "format=", "output=", "append", "portability", "verbose").stoppingAtOperand()),
            Map.entry("exec", Spec.of("a").stoppingAtOperand()),
            Map.entry("strace", Spec.of("abeEIoOpPsSuUX", "output=", "trace=", "signal=", "env=", "user=")
                    .stoppingAtOperand()),
            Map.entry("ltrace", Spec.of("aAeEflLnoOpsSuwx", "output=").stoppingAtOperand()),
            Map.entry("chroot", Spec.of("", "userspec=", "groups=", "skip-chdir").stoppingAtOperand()),
            Map.entry("taskset", Spec.of("", "pid", "cpu-list", "all-tasks").stoppingAtOperand()),
            Map.entry("chrt", Spec.of("T", "sched-runtime=", "sched-period=", "sched-deadline=").stoppingAtOperand()),
            Map.entry("unshare", Spec.of("S", "setuid=", "setgid=", "root=", "wd=", "map-user=", "map-group=")
                    .stoppingAtOperand()),
            Map.entry("nsenter", Spec.of("tSGwr", "target=", "setuid=", "setgid=", "wd=", "root=").stoppingAtOperand()));
    /** Wrappers with a fixed operand before the command: chroot NEWROOT, taskset MASK, chrt PRIORITY, flock FILE. */
    private static final Set<String> ONE_OPERAND_FIRST = Set.of("chroot", "taskset", "chrt", "flock");
    /** Wrappers whose options are not modelled: every word after them is tried as the command's start. */
    private static final Set<String> PLAIN = Set.of("setsid", "nohup", "command", "builtin", "unbuffer",
            "caffeinate", "catchsegv", "torsocks", "proxychains", "proxychains4", "firejail", "systemd-run",
            "busybox", "sg", "doas", "pkexec");
    private static final Spec UNMODELLED = Spec.of("").stoppingAtOperand();

    private final List<SimpleCommand> commands = new ArrayList<>();
    private final List<String> scripts = new ArrayList<>();

    private EffectiveCommands() {}

    static EffectiveCommands of(ShellCommandLine line) {
        EffectiveCommands e = new EffectiveCommands();
        e.scripts.add(line.source());
        for (SimpleCommand c : line.commands()) e.expand(c, 0);
        return e;
    }

    List<SimpleCommand> commands() { return List.copyOf(commands); }

    List<String> scripts() { return List.copyOf(scripts); }

    private void expandScript(String script, boolean privileged, int depth) {
        scripts.add(script);
        for (SimpleCommand inner : ShellCommandLine.parse(script).commands()) {
            expand(privileged ? inner.asPrivileged() : inner, depth + 1);
        }
    }

    private void expand(SimpleCommand c, int depth) {
        commands.add(c);
        if (depth >= ShellCommandLine.MAX_DEPTH) return;
        List<String> w = c.words();
        if (w.isEmpty()) return;
        String prog = c.program();
        if (SHELLS.contains(prog)) {
            shell(c, depth);
            return;
        }
        switch (prog) {
            case "eval" -> expandScript(String.join(" ", w.subList(1, w.size())), c.privileged(), depth);
            case "su" -> {
                Parsed p = GnuOptions.parse(c.args(), SU);
                List<String> scripts = p.values("-c", "--command", "--session-command");
                for (String s : scripts) expandScript(s, true, depth);
                if (scripts.isEmpty()) stdinScript(c, true, depth);
            }
            case "watch" -> { // runs its words through sh -c
                int i = 1;
                while (i < w.size() && w.get(i).startsWith("-")) {
                    if (w.get(i).matches("-[nq]|--(interval|equexit)")) i++; // the options taking a value
                    i++;
                }
                if (i < w.size()) expandScript(String.join(" ", w.subList(i, w.size())), c.privileged(), depth);
            }
            case "script" -> {
                for (int i = 1; i + 1 < w.size(); i++) {
                    if (w.get(i).equals("-c") || w.get(i).equals("--command")) expandScript(w.get(i + 1), c.privileged(), depth);
                }
            }
            case "find" -> {
                for (int i = 1; i < w.size() - 1; i++) {
                    String a = w.get(i);
                    if (a.equals("-exec") || a.equals("-execdir") || a.equals("-ok") || a.equals("-okdir")) {
                        int end = i + 1;
                        while (end < w.size() && !w.get(end).equals(";") && !w.get(end).equals("+")) end++;
                        if (end > i + 1) expand(c.part(i + 1, end, false, false), depth + 1);
                        i = end;
                    }
                }
            }
            case "env" -> env(c, depth);
            case "xargs", "parallel" -> xargs(c, depth);
            case "flock" -> {
                Parsed p = GnuOptions.parse(c.args(), FLOCK);
                for (String s : p.values("-c", "--command")) expandScript(s, c.privileged(), depth);
                wrapped(c, p, true, depth);
            }
            case "sudo", "run0" -> {
                Spec spec = prog.equals("sudo") ? SUDO : RUN0;
                Parsed p = GnuOptions.parse(c.args(), spec);
                if (p.firstOperand() >= c.args().size() && p.has("-s", "-i", "--shell", "--login")) {
                    stdinScript(c, true, depth); // sudo -s / -i without a command: a root shell reading its input
                }
                wrapped(c, p, false, depth);
            }
            default -> {
                Spec spec = WRAPPERS.get(prog);
                if (spec != null) {
                    wrapped(c, GnuOptions.parse(c.args(), spec), ONE_OPERAND_FIRST.contains(prog), depth);
                } else if (PLAIN.contains(prog)) {
                    int f = 1 + GnuOptions.parse(c.args(), UNMODELLED).firstOperand();
                    boolean privileged = PRIVILEGE.contains(prog);
                    if (f < w.size()) expand(c.part(f, w.size(), privileged, true), depth + 1);
                    // an option of theirs may have taken that word as its value (doas -u root CMD)
                    if (f > 1 && f + 1 < w.size() && !w.get(f - 1).contains("=")) {
                        expand(c.part(f + 1, w.size(), privileged, true), depth + 1);
                    }
                }
            }
        }
    }

    /**
     * The command after a wrapper's options (and after a fixed operand such as chroot's NEWROOT). When the
     * wrapper has an option the spec does not know, every later word is also tried as the command's start:
     * more commands are judged, never fewer.
     */
    private void wrapped(SimpleCommand c, Parsed p, boolean skipOne, int depth) {
        int start = 1 + p.firstOperand() + (skipOne ? 1 : 0);
        List<String> w = c.words();
        if (c.program().equals("timeout")) start++; // the duration
        boolean privileged = PRIVILEGE.contains(c.program());
        if (start < w.size()) expand(c.part(start, w.size(), privileged, true), depth + 1);
        if (p.options().stream().anyMatch(GnuOptions.Option::unknownLong)) {
            for (int i = 1; i < Math.min(start, w.size()); i++) {
                if (!w.get(i).startsWith("-")) expand(c.part(i, w.size(), privileged, true), depth + 1);
            }
        }
    }

    private void shell(SimpleCommand c, int depth) {
        List<String> w = c.words();
        boolean command = false, stdin = false;
        int i = 1;
        for (; i < w.size(); i++) {
            String a = w.get(i);
            if (a.equals("--") || a.equals("-")) { i++; break; }
            if (a.startsWith("--")) {
                if (a.equals("--rcfile") || a.equals("--init-file")) i++;
                continue;
            }
            if (!(a.startsWith("-") || a.startsWith("+")) || a.length() < 2) break;
            for (int j = 1; j < a.length(); j++) {
                char ch = a.charAt(j);
                if (ch == 'c') command = true;
                else if (ch == 's') stdin = true;
                else if (ch == 'o' || ch == 'O') i++;
            }
        }
        if (command) {
            if (i < w.size()) expandScript(w.get(i), c.privileged(), depth);
        } else if (stdin || i >= w.size()) {
            stdinScript(c, c.privileged(), depth);
        }
    }

    /** A shell reading its script from its input: judge that script when the line shows it. */
    private void stdinScript(SimpleCommand c, boolean privileged, int depth) {
        Input in = input(c);
        switch (in.kind()) {
            case TEXT -> expandScript(in.text(), privileged, depth);
            case COMPUTED -> expand(new SimpleCommand(List.of(), List.of(COMPUTED_SCRIPT), List.of(false), List.of(),
                    privileged), depth + 1);
            default -> { }
        }
    }

    private void env(SimpleCommand c, int depth) {
        Parsed p = GnuOptions.parse(c.args(), ENV);
        List<String> w = c.words();
        int i = 1 + p.firstOperand();
        while (i < w.size() && w.get(i).matches("[A-Za-z_][A-Za-z0-9_]*=.*")) i++;
        List<String> split = p.values("-S", "--split-string");
        if (!split.isEmpty()) { // env -S 'cmd args' [more args]: the string is split into words (and ${VAR} expanded)
            StringBuilder script = new StringBuilder(String.join(" ", split));
            for (String rest : w.subList(Math.min(i, w.size()), w.size())) script.append(' ').append(quote(rest));
            expandScript(script.toString(), c.privileged(), depth);
        } else if (i < w.size()) {
            expand(c.part(i, w.size(), false, true), depth + 1);
        }
    }

    private void xargs(SimpleCommand c, int depth) {
        boolean parallel = c.program().equals("parallel");
        Parsed p = GnuOptions.parse(c.args(), parallel ? Spec.of("").stoppingAtOperand() : XARGS);
        List<String> w = c.words();
        int start = 1 + p.firstOperand();
        List<String> extra = new ArrayList<>();
        int end = w.size();
        if (parallel) {
            int sep = w.indexOf(":::");
            if (sep > 0) {
                extra.addAll(w.subList(sep + 1, w.size()));
                end = sep;
            }
        }
        if (extra.isEmpty()) {
            Input in = p.has("-a", "--arg-file") ? new Input(Kind.COMPUTED, null) : input(c);
            switch (in.kind()) {
                case TEXT -> extra.addAll(words(in.text()));
                case COMPUTED, FILE -> extra.add(COMPUTED_INPUT);
                default -> { }
            }
        }
        if (start >= end) return; // xargs alone runs echo
        SimpleCommand inner = c.part(start, end, false, false).plus(extra);
        if (parallel) {
            expandScript(String.join(" ", inner.words()), c.privileged(), depth); // parallel runs a shell
        } else {
            expand(inner, depth + 1);
        }
    }

    enum Kind { NONE, TEXT, FILE, COMPUTED }

    /** What a command reads on its input, as far as the line shows it. */
    record Input(Kind kind, String text) {}

    static Input input(SimpleCommand c) {
        for (Redirect r : c.redirects()) {
            if (r.isHereString()) return new Input(Kind.TEXT, r.target() + "\n");
            if (r.isHereDocument()) return new Input(Kind.TEXT, r.body() == null ? "" : r.body());
            if (r.operator().matches("0?<")) {
                return r.target().startsWith("<(") ? new Input(Kind.COMPUTED, null) : new Input(Kind.FILE, null);
            }
        }
        SimpleCommand from = c.pipedFrom();
        if (from == null) return new Input(Kind.NONE, null);
        List<String> args = from.args();
        switch (from.program()) {
            case "echo" -> {
                int i = 0;
                while (i < args.size() && args.get(i).matches("-[neE]+")) i++;
                return new Input(Kind.TEXT, String.join(" ", args.subList(i, args.size())) + "\n");
            }
            case "printf" -> {
                return new Input(Kind.TEXT, String.join(" ", args).replace("\\n", "\n") + "\n");
            }
            case "cat", "tac" -> {
                Input in = input(from);
                if (in.kind() == Kind.TEXT) return in;
                return args.isEmpty() ? in : new Input(Kind.FILE, null);
            }
            default -> {
                return new Input(Kind.COMPUTED, null);
            }
        }
    }

    /** The words xargs would read from a text (blank-separated, quotes as the shell reads them). */
    private static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        for (SimpleCommand c : ShellCommandLine.parse(text.replace('\n', ' ')).commands()) {
            out.addAll(c.assignments());
            out.addAll(c.words());
        }
        return out;
    }

    private static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
