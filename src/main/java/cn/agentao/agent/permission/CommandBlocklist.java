package cn.agentao.agent.permission;

import cn.agentao.agent.permission.ShellCommandLine.Redirect;
import cn.agentao.agent.permission.ShellCommandLine.SimpleCommand;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Unrecoverable shell commands, refused in every mode (even full-access, even when a user rule allows them).
 * Every simple command of the line is checked, including those in substitutions, behind wrappers such as
 * {@code sudo} and inside {@code bash -c}.
 *
 * <p>Refused: recursive {@code rm} (any flag spelling), {@code chmod}/{@code chown}/{@code chgrp -R}, {@code mv}
 * and {@code find -delete} aimed at {@code /}, a top-level directory ({@code /usr}, {@code /*}), the home
 * directory or one of its ancestors ({@code ~}, {@code $HOME}, {@code ..} climbing there); {@code mkfs*} and
 * friends; writing to a device with {@code dd of=}, a redirection, {@code tee}, {@code cp}, {@code shred};
 * fork bombs; {@code shutdown}, {@code reboot}, {@code halt}, {@code poweroff} and their systemctl/init forms.
 *
 * <p>This is a seatbelt, not a sandbox: a target computed at run time ({@code rm -rf "$X"}) is not known here.
 */
final class CommandBlocklist {
    private CommandBlocklist() {}

    private static final Pattern FUNCTION_DEF = Pattern.compile(
            "(?:function\\s+)?([^\\s(){};|&<>]+)\\s*(?:\\(\\s*\\))?\\s*\\{(.*?)}", Pattern.DOTALL);
    private static final Set<String> SAFE_DEVICES = Set.of(
            "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/stdin",
            "/dev/stdout", "/dev/stderr", "/dev/ptmx");
    private static final Set<String> POWER = Set.of("shutdown", "reboot", "halt", "poweroff");
    private static final Set<String> FS_MAKERS = Set.of("mke2fs", "mkswap", "wipefs", "mkdosfs", "newfs");

    /** The reason the line is refused, or empty. */
    static Optional<String> check(ShellCommandLine line, Path cwd, Path home) {
        if (isForkBomb(line.source())) return Optional.of("a fork bomb");
        Path dir = cwd;
        for (SimpleCommand c : line.effectiveCommands()) {
            String prog = c.program();
            List<String> args = c.args();
            if (prog.equals("cd")) {
                dir = cdTarget(args, dir, home);
                continue;
            }
            Optional<String> why = checkOne(c, prog, args, dir, home);
            if (why.isPresent()) return why;
        }
        return Optional.empty();
    }

    private static Optional<String> checkOne(SimpleCommand c, String prog, List<String> args, Path cwd, Path home) {
        for (Redirect r : c.redirects()) {
            if (r.operator().contains(">") && isDevice(r.target())) return blocked("writing to device " + r.target());
        }
        switch (prog) {
            case "rm", "chmod", "chown", "chgrp", "mv" -> {
                boolean recursive = prog.equals("mv");
                List<String> operands = new ArrayList<>();
                boolean optionsDone = false;
                for (String a : args) {
                    if (!optionsDone && a.equals("--")) {
                        optionsDone = true;
                    } else if (!optionsDone && a.startsWith("--")) {
                        if (a.equals("--recursive")) recursive = true;
                    } else if (!optionsDone && a.startsWith("-") && a.length() > 1) {
                        if (a.indexOf('r') > 0 || a.indexOf('R') > 0) recursive = true;
                    } else {
                        operands.add(a);
                    }
                }
                if (!recursive) return Optional.empty();
                if (prog.equals("mv") && operands.size() > 1) {
                    operands = operands.subList(0, operands.size() - 1); // the sources, not the destination
                } else if (!prog.equals("rm") && !prog.equals("mv") && !operands.isEmpty()
                        && operands.get(0).matches("[^/~.*$`]+")) {
                    operands = operands.subList(1, operands.size()); // the mode or owner
                }
                for (String a : operands) {
                    if (isCriticalPath(a, cwd, home)) {
                        return blocked(prog + (prog.equals("mv") ? " of " : prog.equals("rm") ? " -r on " : " -R on ") + a);
                    }
                }
            }
            case "find" -> {
                if (args.contains("-delete")) {
                    for (String a : args) {
                        if (a.startsWith("-") || a.startsWith("(") || a.startsWith("!")) break;
                        if (isCriticalPath(a, cwd, home)) return blocked("find -delete on " + a);
                    }
                }
            }
            case "dd" -> {
                for (String a : args) {
                    if (a.startsWith("of=") && isDevice(a.substring(3))) return blocked("dd to device " + a.substring(3));
                }
            }
            case "tee", "shred", "truncate" -> {
                for (String a : args) if (isDevice(a)) return blocked(prog + " on device " + a);
            }
            case "cp", "install" -> {
                if (!args.isEmpty() && isDevice(args.get(args.size() - 1))) {
                    return blocked(prog + " to device " + args.get(args.size() - 1));
                }
            }
            case "systemctl", "loginctl" -> {
                for (String a : args) {
                    if (Set.of("poweroff", "reboot", "halt", "kexec", "suspend", "hibernate").contains(a)) {
                        return blocked(prog + " " + a);
                    }
                }
            }
            case "init", "telinit" -> {
                if (args.contains("0") || args.contains("6")) return blocked(prog + " " + String.join(" ", args));
            }
            default -> {
                if (POWER.contains(prog)) return blocked(prog);
                if (prog.startsWith("mkfs") || FS_MAKERS.contains(prog)) return blocked(prog + " (formats a file system)");
            }
        }
        return Optional.empty();
    }

    private static Optional<String> blocked(String what) {
        return Optional.of(what);
    }

    static boolean isForkBomb(String source) {
        Matcher m = FUNCTION_DEF.matcher(source);
        while (m.find()) {
            String name = Pattern.quote(m.group(1));
            String body = m.group(2);
            if (Pattern.compile("(?<![\\w.:-])" + name + "\\s*\\|&?\\s*" + name + "(?![\\w.:-])").matcher(body).find()
                    || Pattern.compile("(?<![\\w.:-])" + name + "\\s*&\\s*;?\\s*" + name + "(?![\\w.:-])").matcher(body).find()) {
                return true;
            }
        }
        return false;
    }

    /** A device file other than the harmless ones (/dev/null, /dev/tty, /dev/fd/*, ...). */
    static boolean isDevice(String target) {
        if (!target.startsWith("/dev/")) return false;
        String t = Path.of(target).normalize().toString();
        return t.startsWith("/dev/") && !SAFE_DEVICES.contains(t)
                && !t.startsWith("/dev/fd/") && !t.startsWith("/dev/pts/") && !t.startsWith("/dev/shm/");
    }

    /**
     * Whether a path argument names {@code /}, a top-level directory, the home directory or an ancestor of it,
     * or all the entries of one of those ({@code /*}, {@code ~/*}). Computed (unknown) values are not critical.
     */
    static boolean isCriticalPath(String word, Path cwd, Path home) {
        String w = word;
        if (w.startsWith("$HOME")) w = "~" + w.substring(5);
        else if (w.startsWith("${HOME}")) w = "~" + w.substring(7);
        if (w.contains("$") || w.contains("`")) return false;
        if (w.startsWith("~") && !w.equals("~") && !w.startsWith("~/")) {
            int slash = w.indexOf('/');
            String rest = slash < 0 ? "" : w.substring(slash);
            return rest.replaceAll("[/.*]", "").isEmpty(); // ~user, ~user/, ~user/*
        }
        Path p;
        if (w.equals("~") || w.startsWith("~/")) {
            p = home.resolve(w.length() > 2 ? w.substring(2) : "");
        } else if (w.startsWith("/")) {
            p = Path.of(w);
        } else {
            if (cwd == null) return false;
            p = cwd.resolve(w.isEmpty() ? "." : w);
        }
        p = stripTrailingWildcards(p);
        Path n = p.normalize();
        return n.getNameCount() <= 1 || home.normalize().startsWith(n);
    }

    /** {@code /usr/*} and {@code ~/.*} name everything in the directory: judge the directory. */
    private static Path stripTrailingWildcards(Path p) {
        while (p.getFileName() != null && p.getFileName().toString().matches("[*?.]*\\*[*?.]*|\\.\\[!.]\\*|\\.\\?\\*")) {
            p = p.getParent() == null ? p.getRoot() : p.getParent();
        }
        return p;
    }

    private static Path cdTarget(List<String> args, Path dir, Path home) {
        List<String> operands = args.stream().filter(a -> !a.startsWith("-") || a.equals("-")).toList();
        if (operands.isEmpty()) return home;
        String t = operands.get(0);
        if (t.contains("$") || t.contains("`") || t.equals("-")) return null;
        if (t.equals("~") || t.startsWith("~/")) return home.resolve(t.length() > 2 ? t.substring(2) : "").normalize();
        if (t.startsWith("/")) return Path.of(t).normalize();
        return dir == null ? null : dir.resolve(t).normalize();
    }
}
