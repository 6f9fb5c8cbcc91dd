package cn.agentao.agent.permission;

import cn.agentao.agent.permission.GnuOptions.Parsed;
import cn.agentao.agent.permission.GnuOptions.Spec;
import cn.agentao.agent.permission.ShellCommandLine.Redirect;
import cn.agentao.agent.permission.ShellCommandLine.SimpleCommand;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Unrecoverable shell commands, refused in every mode (even full-access, even when a user rule allows them).
 * Every simple command the line runs is checked ({@link ShellCommandLine#effectiveCommands()}): those in
 * substitutions, behind wrappers such as {@code sudo}, {@code env -S} and {@code xargs} (with the words of its
 * input), inside {@code bash -c}, and scripts fed to a shell on its input ({@code bash <<< …},
 * {@code echo … | sh}). Options are read in every GNU spelling ({@code rm --rec --force}).
 *
 * <p>Refused: recursive {@code rm}, {@code chmod}/{@code chown}/{@code chgrp -R}, {@code mv} and {@code find}
 * that deletes ({@code -delete}, {@code -exec rm}) aimed at {@code /}, a top-level directory ({@code /usr},
 * {@code /*}), the home directory or one of its ancestors ({@code ~}, {@code $HOME}, {@code ${HOME%/}},
 * {@code ..} climbing there, also after {@code cd ~ &&}); making or wiping file systems and partition tables
 * ({@code mkfs*}, {@code wipefs}, {@code blkdiscard}, {@code sgdisk}, {@code sfdisk}, {@code fdisk},
 * {@code parted} that write); writing to a device; fork bombs of any name; signals to every process
 * ({@code kill -9 -1}, {@code pkill .}, {@code killall -u}); {@code shutdown}, {@code reboot}, {@code halt},
 * {@code poweroff}, {@code systemctl poweroff|isolate|start reboot.target}, {@code init 0}.
 *
 * <p>Where the target is computed at run time and could be one of those ({@code rm -rf "$X"},
 * {@code find | xargs rm -rf}, {@code curl … | sh}) the finding is not certain: the command is asked about
 * every time instead of being refused.
 */
final class CommandBlocklist {
    private CommandBlocklist() {}

    /** What was found: {@code certain} findings are refused, others asked about every time. */
    record Finding(String what, boolean certain) {}

    private enum Severity { SAFE, UNSURE, CRITICAL }

    private static final Set<String> SAFE_DEVICES = Set.of(
            "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/stdin",
            "/dev/stdout", "/dev/stderr", "/dev/ptmx");
    private static final Set<String> POWER = Set.of("shutdown", "reboot", "halt", "poweroff");
    private static final Set<String> FS_MAKERS = Set.of("mke2fs", "mkswap", "wipefs", "mkdosfs", "newfs", "mkntfs",
            "mkexfatfs", "mkudffs", "blkdiscard");
    private static final Set<String> SYSTEMCTL_POWER = Set.of("poweroff", "reboot", "halt", "kexec", "rescue",
            "emergency", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "soft-reboot", "default",
            "exit", "switch-root", "isolate");
    private static final Pattern POWER_UNIT = Pattern.compile(
            "(poweroff|reboot|halt|kexec|rescue|emergency|shutdown|final|soft-reboot|exit|sleep|suspend|hibernate"
                    + "|hybrid-sleep|suspend-then-hibernate|ctrl-alt-del|system-update|initrd-switch-root|umount)\\.target"
                    + "|systemd-(poweroff|reboot|halt|kexec|soft-reboot|suspend|hibernate)(\\.service)?");
    private static final Set<String> LOGINCTL_KILL = Set.of("poweroff", "reboot", "halt", "kexec", "suspend",
            "hibernate", "kill-user", "terminate-user", "kill-session", "terminate-session", "terminate-seat");
    /** Partitioning tools and the options with which they only read. */
    private static final Set<String> PARTITION_READS = Set.of("-l", "--list", "-p", "--print", "-i", "--info",
            "-v", "--verify", "-V", "--version", "-h", "--help", "-d", "--dump", "-J", "--json", "-s", "--show-size",
            "-F", "--list-free", "-L", "--list-types", "-O", "--print-mbr", "-x", "--list-details", "-g",
            "--show-geometry", "print", "p", "unit");

    private static final Spec RM = Spec.of("", "recursive", "force", "interactive=?", "one-file-system",
            "no-preserve-root", "preserve-root=?", "dir", "verbose");
    private static final Spec CHMOD = Spec.of("", "recursive", "reference=", "from=", "changes", "silent", "quiet",
            "verbose", "dereference", "no-dereference", "preserve-root", "no-preserve-root");
    private static final Spec MV = Spec.of("tS", "target-directory=", "suffix=", "backup=?", "force", "interactive",
            "no-clobber", "no-target-directory", "update=?", "verbose", "strip-trailing-slashes");
    private static final Spec SYSTEMCTL = Spec.of("tspHMno", "type=", "state=", "property=", "signal=", "kill-whom=",
            "host=", "machine=", "lines=", "output=", "root=", "when=", "message=", "job-mode=", "force", "now");
    private static final Spec PKILL = Spec.of("dgGOPstuUF", "delimiter=", "pgroup=", "group=", "older=",
            "parent=", "session=", "terminal=", "euid=", "uid=", "pidfile=", "signal=", "inverse", "full", "exact");
    private static final Spec KILLALL = Spec.of("ouysn", "older-than=", "younger-than=", "user=", "signal=",
            "ns=", "regexp", "interactive", "exact", "ignore-case", "process-group", "wait");
    private static final List<String> PROCESS_NAMES = List.of("a", "init", "systemd", "bash", "sshd", "java",
            "kworker/0:1", "1");

    /** What the line must not silently do, or empty. A certain finding wins over an uncertain one. */
    static Optional<Finding> check(ShellCommandLine line, Path cwd, Path home) {
        for (String script : line.scripts()) {
            if (isForkBomb(script)) return Optional.of(new Finding("a fork bomb", true));
        }
        Finding unsure = null;
        Path dir = cwd;
        for (SimpleCommand c : line.effectiveCommands()) {
            String prog = c.program();
            if (prog.equals("cd") || prog.equals("pushd")) {
                dir = cdTarget(c.args(), dir, home);
                continue;
            }
            if (prog.equals("popd")) {
                dir = null;
                continue;
            }
            Optional<Finding> f = checkOne(c, prog, c.args(), dir, home);
            if (f.isPresent() && f.get().certain()) return f;
            if (f.isPresent() && unsure == null) unsure = f.get();
        }
        return Optional.ofNullable(unsure);
    }

    /** Whether a command deletes recursively and forcibly (rm -rf in any spelling). */
    static boolean isForcedRecursiveRm(SimpleCommand c) {
        if (!c.program().equals("rm")) return false;
        Parsed p = GnuOptions.parse(c.args(), RM);
        return p.has("-r", "-R", "--recursive") && p.has("-f", "--force");
    }

    private static Optional<Finding> checkOne(SimpleCommand c, String prog, List<String> args, Path cwd, Path home) {
        for (Redirect r : c.redirects()) {
            if (r.operator().contains(">") && (isDevice(r.target()) || isDevice(resolve(r.target(), cwd)))) {
                return certain("writing to device " + r.target());
            }
        }
        if (!c.words().isEmpty() && isComputed(c.words().get(0))) {
            return unsure("a command computed at run time (" + c.words().get(0) + ")");
        }
        switch (prog) {
            case "rm", "chmod", "chown", "chgrp", "mv" -> {
                return recursiveChange(prog, args, cwd, home);
            }
            case "find" -> {
                return findDeleting(c, cwd, home);
            }
            case "dd" -> {
                for (String a : args) {
                    if (a.startsWith("of=") && (isDevice(a.substring(3)) || isDevice(resolve(a.substring(3), cwd)))) {
                        return certain("dd to device " + a.substring(3));
                    }
                }
            }
            case "tee", "shred", "truncate" -> {
                for (String a : args) if (isDevice(a) || isDevice(resolve(a, cwd))) return certain(prog + " on device " + a);
            }
            case "cp", "install" -> {
                if (!args.isEmpty()) {
                    String last = args.get(args.size() - 1);
                    if (isDevice(last) || isDevice(resolve(last, cwd))) return certain(prog + " to device " + last);
                }
            }
            case "systemctl" -> {
                List<String> ops = GnuOptions.parse(args, SYSTEMCTL).operands();
                if (!ops.isEmpty() && SYSTEMCTL_POWER.contains(ops.get(0))) return certain("systemctl " + ops.get(0));
                for (String unit : ops) {
                    if (POWER_UNIT.matcher(unit).matches()) return certain("systemctl " + String.join(" ", ops));
                }
            }
            case "loginctl" -> {
                for (String a : args) if (LOGINCTL_KILL.contains(a)) return certain("loginctl " + a);
            }
            case "init", "telinit" -> {
                for (String a : args) {
                    if (Set.of("0", "6", "1", "s", "S", "single", "emergency").contains(a)) {
                        return certain(prog + " " + String.join(" ", args));
                    }
                }
            }
            case "kill" -> {
                return killEverything(args);
            }
            case "pkill", "killall", "killall5" -> {
                return killByName(prog, args);
            }
            case "kexec" -> {
                if (!args.stream().anyMatch(a -> a.matches("-[lpu]|--(load|load-panic|unload)")) || args.contains("-e")
                        || args.contains("--exec")) {
                    return certain("kexec (starts another kernel)");
                }
            }
            case "sgdisk", "sfdisk", "fdisk", "gdisk", "cfdisk", "parted" -> {
                // only reads when every word is a device or a listing option (parted: print, unit U)
                boolean lists = false;
                for (int i = 0; i < args.size(); i++) {
                    String a = args.get(i);
                    if (a.startsWith("/dev/")) continue;
                    if (!PARTITION_READS.contains(a)) return certain(prog + " (writes a partition table)");
                    lists = true;
                    if (a.equals("unit")) i++;
                }
                if (!lists) return certain(prog + " (writes a partition table)");
            }
            case "hdparm" -> {
                for (String a : args) {
                    if (a.matches("--(security-erase|security-erase-enhanced|trim-sector-ranges|write-sector"
                            + "|fwdownload|dco-restore|make-bad-sector|security-set-pass).*")) {
                        return certain("hdparm " + a);
                    }
                }
            }
            case "nvme" -> {
                if (!args.isEmpty() && Set.of("format", "sanitize", "delete-ns").contains(args.get(0))) {
                    return certain("nvme " + args.get(0));
                }
            }
            default -> {
                if (POWER.contains(prog)) return certain(prog);
                if (prog.startsWith("mkfs") || FS_MAKERS.contains(prog)) {
                    return certain(prog + (prog.equals("blkdiscard") ? " (discards a device)" : " (formats a file system)"));
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Finding> recursiveChange(String prog, List<String> args, Path cwd, Path home) {
        Parsed p = GnuOptions.parse(args, prog.equals("rm") ? RM : prog.equals("mv") ? MV : CHMOD);
        boolean recursive = prog.equals("mv") || p.has("-R", "--recursive") || prog.equals("rm") && p.has("-r");
        if (!recursive) return Optional.empty();
        List<String> operands = new ArrayList<>(p.operands());
        if (prog.equals("mv")) {
            if (p.values("-t", "--target-directory").isEmpty() && operands.size() > 1) {
                operands = operands.subList(0, operands.size() - 1); // the sources, not the destination
            }
        } else if (!prog.equals("rm") && !p.has("--reference") && !operands.isEmpty()
                && operands.get(0).matches("[^/~.*$`]+")) {
            operands = operands.subList(1, operands.size()); // the mode or owner
        }
        String verb = prog + (prog.equals("mv") ? " of " : prog.equals("rm") ? " -r on " : " -R on ");
        return judgeTargets(verb, operands, cwd, home);
    }

    private static Optional<Finding> judgeTargets(String verb, List<String> targets, Path cwd, Path home) {
        Optional<Finding> unsure = Optional.empty();
        for (String a : targets) {
            Severity s = severity(a, cwd, home);
            if (s == Severity.CRITICAL) return certain(verb + a);
            if (s == Severity.UNSURE && unsure.isEmpty()) {
                unsure = unsure(verb + a + ", whose value is only known when it runs");
            }
        }
        return unsure;
    }

    /** find that deletes (-delete, or -exec of rm, chmod, chown, mv, shred) judged by its start points. */
    private static Optional<Finding> findDeleting(SimpleCommand c, Path cwd, Path home) {
        List<String> args = c.args();
        boolean deletes = args.contains("-delete");
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).matches("-(exec|execdir|ok|okdir)")) {
                String run = args.get(i + 1);
                String base = run.substring(run.lastIndexOf('/') + 1);
                if (Set.of("rm", "chmod", "chown", "chgrp", "mv", "shred", "truncate").contains(base)) deletes = true;
            }
        }
        if (!deletes) return Optional.empty();
        List<String> starts = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.matches("-[HLP]")) continue;
            if (a.equals("-D") || a.matches("-O\\d*")) {
                if (a.equals("-D")) i++;
                continue;
            }
            if (a.startsWith("-") || a.startsWith("(") || a.startsWith("!")) break;
            starts.add(a);
        }
        if (starts.isEmpty()) starts.add(".");
        return judgeTargets("find deleting in ", starts, cwd, home);
    }

    /** kill with pid -1 (every process the user may signal) or 1 (init). */
    private static Optional<Finding> killEverything(List<String> args) {
        int i = 0;
        if (!args.isEmpty()) {
            String a = args.get(0);
            if (a.equals("-l") || a.equals("-L") || a.equals("--list") || a.equals("--table")) return Optional.empty();
            if (a.equals("-s") || a.equals("-n") || a.equals("--signal")) i = 2;
            else if (a.startsWith("--signal=") || a.startsWith("-") && !a.equals("--")) i = 1;
        }
        if (i < args.size() && args.get(i).equals("--")) i++;
        for (String pid : args.subList(Math.min(i, args.size()), args.size())) {
            if (pid.equals("-1") || pid.equals("1")) return certain("kill " + String.join(" ", args) + " (every process)");
        }
        return Optional.empty();
    }

    /** pkill/killall whose selection is every process, or every process of a user. */
    private static Optional<Finding> killByName(String prog, List<String> args) {
        if (prog.equals("killall5")) return certain("killall5 (every process)");
        List<String> a = args;
        if (!a.isEmpty() && a.get(0).matches("-([0-9]+|[A-Z][A-Z0-9+-]*)")) a = a.subList(1, a.size()); // -9, -KILL
        Parsed p = GnuOptions.parse(a, prog.equals("pkill") ? PKILL : KILLALL);
        String what = prog + " " + String.join(" ", args) + " (every process)";
        if (prog.equals("pkill") && p.has("-v", "--inverse")) return certain(what);
        if (p.operands().isEmpty()) {
            return p.has("-u", "-U", "--euid", "--uid", "--user", "-g", "-G", "--group", "--pgroup")
                    ? certain(what) : Optional.empty();
        }
        if (prog.equals("killall") && !p.has("-r", "--regexp")) return Optional.empty();
        for (String pattern : p.operands()) {
            try {
                Pattern re = Pattern.compile(pattern);
                if (PROCESS_NAMES.stream().allMatch(n -> re.matcher(n).find())) return certain(what);
            } catch (RuntimeException e) {
                // not a Java regex: judged as a name
            }
        }
        return Optional.empty();
    }

    private static Optional<Finding> certain(String what) {
        return Optional.of(new Finding(what, true));
    }

    private static Optional<Finding> unsure(String what) {
        return Optional.of(new Finding(what, false));
    }

    // ---- fork bombs ----

    private static final Pattern FUNCTION_START = Pattern.compile(
            "(?:^|[\\s;&|(){}])(?:function\\s+([^\\s(){};|&<>'\"]+)\\s*(?:\\(\\s*\\))?|([^\\s(){};|&<>'\"]+)\\s*\\(\\s*\\))\\s*([{(])");

    /**
     * A function that calls itself at least twice where the calls run at the same time: in a pipeline
     * ({@code f | f}) or in the background ({@code f & f}). Any name, either body form ({@code { }} or
     * {@code ( )}), {@code function f} syntax.
     */
    static boolean isForkBomb(String script) {
        Matcher m = FUNCTION_START.matcher(script);
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            int open = m.end(3) - 1;
            String body = script.substring(open + 1, matching(script, open));
            Pattern call = Pattern.compile("(?<![^\\s;&|(){}`$])" + Pattern.quote(name) + "(?=$|[\\s;&|()}`])");
            Matcher calls = call.matcher(body);
            int count = 0;
            while (calls.find()) count++;
            String operators = body.replace("||", " ").replace("&&", " ").replace(">&", " ").replace("&>", " ");
            if (count >= 2 && (operators.contains("|") || operators.contains("&"))) return true;
        }
        return false;
    }

    private static int matching(String s, int open) {
        char o = s.charAt(open), c = o == '{' ? '}' : ')';
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            if (s.charAt(i) == o) depth++;
            else if (s.charAt(i) == c && --depth == 0) return i;
        }
        return s.length();
    }

    // ---- paths ----

    /** A device file other than the harmless ones (/dev/null, /dev/tty, /dev/fd/*, ...), or the sysrq trigger. */
    static boolean isDevice(String target) {
        if (target == null) return false;
        if (target.equals("/proc/sysrq-trigger")) return true;
        if (!target.startsWith("/dev/")) return false;
        String t = Path.of(target).normalize().toString();
        return t.startsWith("/dev/") && !SAFE_DEVICES.contains(t)
                && !t.startsWith("/dev/fd/") && !t.startsWith("/dev/pts/") && !t.startsWith("/dev/shm/");
    }

    /** Where a relative or linked path really leads (null when unknown), to see a device behind a link. */
    private static String resolve(String target, Path cwd) {
        if (target.contains("$") || target.contains("`") || target.startsWith("~") || target.startsWith("/dev/")) return null;
        if (cwd == null && !target.startsWith("/")) return null;
        Path p = target.startsWith("/") ? Path.of(target) : cwd.resolve(target);
        return Files.exists(p) ? Workspace.realPath(p).map(Path::toString).orElse(null) : null;
    }

    private static final Pattern HOME_PLAIN = Pattern.compile("^\\$HOME(?![A-Za-z0-9_])|^\\$\\{HOME}");
    /** ${HOME%…}, ${HOME%%…} (HOME or an ancestor), ${HOME:-…}, ${HOME-…}, ${HOME:=…}, ${HOME:?…} (HOME). */
    private static final Pattern HOME_MODIFIED = Pattern.compile("^\\$\\{HOME(%%?|:?[-=?])[^}]*}");
    private static final Pattern PWD = Pattern.compile("^(\\$PWD(?![A-Za-z0-9_])|\\$\\{PWD}|\\$\\(pwd\\)|`pwd`|~\\+)");

    /**
     * How dangerous a recursive change of a path argument is: CRITICAL for {@code /}, a top-level directory, the
     * home directory or an ancestor of it, or all the entries of one of those ({@code /*}, {@code ~/*}); UNSURE
     * when a run-time value could make it one of those.
     */
    private static Severity severity(String word, Path cwd, Path home) {
        String w = word;
        Matcher hm = HOME_PLAIN.matcher(w);
        Matcher hmod = HOME_MODIFIED.matcher(w);
        Matcher pwd = PWD.matcher(w);
        if (hm.find()) w = "~" + w.substring(hm.end());
        else if (hmod.find()) w = "~" + w.substring(hmod.end());
        else if (w.startsWith("${HOME")) return Severity.UNSURE; // ${HOME:+x}, ${HOME#/}, ${HOME/…}: computed
        else if (pwd.find()) {
            if (cwd == null) return Severity.UNSURE;
            w = cwd + w.substring(pwd.end());
        }
        if (isComputed(w) || w.contains("$") || w.contains("`")) return computedSeverity(w, home);
        if (w.startsWith("~") && !w.equals("~") && !w.startsWith("~/")) {
            int slash = w.indexOf('/');
            String rest = slash < 0 ? "" : w.substring(slash);
            return rest.replaceAll("[/.*]", "").isEmpty() ? Severity.CRITICAL : Severity.SAFE; // ~user, ~user/*
        }
        Path p;
        if (w.equals("~") || w.startsWith("~/")) {
            p = home.resolve(w.length() > 2 ? w.substring(2) : "");
        } else if (w.startsWith("/")) {
            p = Path.of(w);
        } else {
            if (cwd == null) { // after a cd to a place only known at run time
                Path rel = stripTrailingWildcards(Path.of(w.isEmpty() ? "." : w)).normalize();
                return rel.toString().isEmpty() || rel.getNameCount() <= 1 || rel.startsWith("..")
                        ? Severity.UNSURE : Severity.SAFE;
            }
            p = cwd.resolve(w.isEmpty() ? "." : w);
        }
        p = stripTrailingWildcards(p);
        Path n = p.normalize();
        return n.getNameCount() <= 1 || home.normalize().startsWith(n) ? Severity.CRITICAL : Severity.SAFE;
    }

    /** A word that is wholly a run-time value: {@code $X}, {@code "${X}"}, {@code $(cmd)}, {@code `cmd`}. */
    private static boolean isComputed(String w) {
        return !w.isEmpty() && (w.charAt(0) == '$' || w.charAt(0) == '`') && literalAfterExpansions(w).isEmpty()
                && !w.equals("$");
    }

    /**
     * A path holding a run-time value could be critical when the literal text after the last expansion leaves
     * it room to be: nothing or only slashes and wildcards ({@code "$X"}, {@code $X/*}), a top-level directory
     * that exists ({@code $X/usr}), the home directory's name, or a climb ({@code $X/..}).
     */
    private static Severity computedSeverity(String w, Path home) {
        String literal = literalAfterExpansions(w);
        if (literal.contains("..")) return Severity.UNSURE;
        String bare = literal.replaceAll("[*?]", "");
        Path rest = Path.of(bare.isEmpty() ? "/" : bare.startsWith("/") ? bare : "/" + bare).normalize();
        if (rest.getNameCount() == 0) return Severity.UNSURE;
        if (rest.getNameCount() == 1 && (Files.exists(rest) || rest.getFileName().equals(home.getFileName()))) {
            return Severity.UNSURE;
        }
        if (home.normalize().endsWith(rest.toString().substring(1))) return Severity.UNSURE;
        return Severity.SAFE;
    }

    /** The text after the last {@code $NAME}, {@code ${…}}, {@code $(…)} or backtick expansion of a word. */
    private static String literalAfterExpansions(String w) {
        int end = 0;
        int i = 0;
        while (i < w.length()) {
            char ch = w.charAt(i);
            if (ch == '`') {
                int close = w.indexOf('`', i + 1);
                i = close < 0 ? w.length() : close + 1;
                end = i;
            } else if (ch == '$' && i + 1 < w.length()) {
                char n = w.charAt(i + 1);
                if (n == '{' || n == '(') {
                    char o = n, c = n == '{' ? '}' : ')';
                    int depth = 0, j = i + 1;
                    for (; j < w.length(); j++) {
                        if (w.charAt(j) == o) depth++;
                        else if (w.charAt(j) == c && --depth == 0) break;
                    }
                    i = Math.min(j + 1, w.length());
                } else if (Character.isLetterOrDigit(n) || n == '_') {
                    i += 2;
                    while (i < w.length() && (Character.isLetterOrDigit(w.charAt(i)) || w.charAt(i) == '_')) i++;
                } else {
                    i += 2; // $@, $*, $1, $$ ...
                }
                end = i;
            } else {
                i++;
            }
        }
        return w.substring(end);
    }

    /** {@code /usr/*} and {@code ~/.*} name everything in the directory: judge the directory. */
    private static Path stripTrailingWildcards(Path p) {
        while (p.getFileName() != null && p.getFileName().toString().matches("[*?.]*\\*[*?.]*|\\.\\[!.]\\*|\\.\\?\\*")) {
            p = p.getParent() == null ? (p.getRoot() == null ? Path.of(".") : p.getRoot()) : p.getParent();
        }
        return p;
    }

    /** Where {@code cd}/{@code pushd} leads: null when only known at run time. */
    private static Path cdTarget(List<String> args, Path dir, Path home) {
        List<String> operands = new ArrayList<>();
        boolean optionsDone = false;
        for (String a : args) {
            if (!optionsDone && a.equals("--")) optionsDone = true;
            else if (!optionsDone && a.startsWith("-") && !a.equals("-")) continue;
            else operands.add(a);
        }
        if (operands.isEmpty()) return home;
        String t = operands.get(0);
        Matcher hm = HOME_PLAIN.matcher(t);
        Matcher hmod = HOME_MODIFIED.matcher(t);
        if (hm.find()) t = "~" + t.substring(hm.end());
        else if (hmod.find() && !hmod.group(1).startsWith("%")) t = "~" + t.substring(hmod.end());
        if (t.contains("$") || t.contains("`") || t.equals("-") || (t.startsWith("~") && !t.equals("~") && !t.startsWith("~/"))) {
            return null;
        }
        if (t.equals("~") || t.startsWith("~/")) return home.resolve(t.length() > 2 ? t.substring(2) : "").normalize();
        if (t.startsWith("/")) return Path.of(t).normalize();
        return dir == null ? null : dir.resolve(t).normalize();
    }
}
