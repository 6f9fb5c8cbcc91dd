package cn.agentao.agent.permission;

import cn.agentao.agent.permission.ShellCommandLine.SimpleCommand;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Recognizes shell command lines that only read: one known command (no path in its name) with arguments that
 * make it neither write, run other programs nor read its input from elsewhere, and none of
 * {@code ; & | $ < >}, backticks, braces or newlines anywhere in the line (so no chaining, substitution,
 * redirection or brace expansion). Paths the command reads are judged separately.
 */
final class ReadOnlyCommands {
    private ReadOnlyCommands() {}

    /** Characters whose presence anywhere makes a line not read-only. */
    static final String METACHARACTERS = ";&|$<>`{}\n\r";

    private static final Predicate<List<String>> ANY = args -> true;

    private static final Map<String, Predicate<List<String>>> COMMANDS = Map.ofEntries(
            Map.entry("ls", ANY), Map.entry("cat", ANY), Map.entry("head", ANY), Map.entry("tail", ANY),
            Map.entry("wc", ANY), Map.entry("pwd", ANY), Map.entry("echo", ANY), Map.entry("printf", ANY),
            Map.entry("which", ANY), Map.entry("type", ANY), Map.entry("stat", ANY), Map.entry("du", ANY),
            Map.entry("df", ANY), Map.entry("realpath", ANY), Map.entry("readlink", ANY),
            Map.entry("basename", ANY), Map.entry("dirname", ANY), Map.entry("diff", ANY), Map.entry("cmp", ANY),
            Map.entry("whoami", ANY), Map.entry("id", ANY), Map.entry("uname", ANY), Map.entry("true", ANY),
            Map.entry("false", ANY), Map.entry("cut", ANY), Map.entry("nl", ANY), Map.entry("tac", ANY),
            Map.entry("rev", ANY), Map.entry("fold", ANY), Map.entry("column", ANY), Map.entry("strings", ANY),
            Map.entry("od", ANY), Map.entry("hexdump", ANY), Map.entry("md5sum", ANY), Map.entry("sha1sum", ANY),
            Map.entry("sha256sum", ANY), Map.entry("sha512sum", ANY), Map.entry("cksum", ANY),
            Map.entry("grep", ANY), Map.entry("egrep", ANY), Map.entry("fgrep", ANY), Map.entry("jq", ANY),
            Map.entry("test", ANY),
            Map.entry("file", args -> noneOf(args, "-C", "--compile")),
            Map.entry("date", args -> noneOf(args, "-s", "--set") && args.stream().noneMatch(a -> a.startsWith("--set="))),
            Map.entry("rg", args -> args.stream().noneMatch(a -> a.equals("--pre") || a.startsWith("--pre="))),
            Map.entry("tree", args -> noneOf(args, "-o")),
            Map.entry("sort", args -> args.stream().noneMatch(a -> a.startsWith("-o") || a.startsWith("--output")
                    || a.startsWith("--compress-program"))),
            Map.entry("uniq", args -> args.stream().filter(a -> !a.startsWith("-")).count() <= 1),
            Map.entry("find", args -> noneOf(args, "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
                    "-fprint0", "-fprintf", "-fls")),
            Map.entry("git", ReadOnlyCommands::readOnlyGit));

    private static final Set<String> GIT_READ_ONLY = Set.of(
            "status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog",
            "cat-file", "ls-tree", "grep", "rev-list", "merge-base", "whatchanged", "reflog");

    /** Whether the whole line is one read-only command. */
    static boolean isReadOnly(String commandLine) {
        for (int i = 0; i < commandLine.length(); i++) {
            if (METACHARACTERS.indexOf(commandLine.charAt(i)) >= 0) return false;
        }
        List<SimpleCommand> commands = ShellCommandLine.parse(commandLine).commands();
        if (commands.size() != 1) return false;
        return isReadOnly(commands.get(0));
    }

    static boolean isReadOnly(SimpleCommand c) {
        if (!c.assignments().isEmpty() || !c.redirects().isEmpty() || c.words().isEmpty()) return false;
        String name = c.words().get(0);
        if (name.contains("/")) return false;
        Predicate<List<String>> argsOk = COMMANDS.get(name);
        return argsOk != null && argsOk.test(c.args());
    }

    private static boolean noneOf(List<String> args, String... forbidden) {
        for (String f : forbidden) if (args.contains(f)) return false;
        return true;
    }

    /**
     * Git subcommands that only read, without options that write files or run configured programs. (The
     * repository's own config could still name programs; writes into {@code .git} are therefore never silent.)
     */
    private static boolean readOnlyGit(List<String> args) {
        int i = 0;
        while (i < args.size() && args.get(i).startsWith("-")) {
            String a = args.get(i);
            if (a.equals("-C") && i + 1 < args.size()) i += 2;
            else if (a.equals("--no-pager") || a.equals("-P") || a.equals("--no-optional-locks")) i++;
            else return false; // -c, --exec-path, --git-dir=...: not judged
        }
        if (i >= args.size()) return false;
        String sub = args.get(i);
        List<String> rest = args.subList(i + 1, args.size());
        for (String a : rest) {
            if (a.startsWith("--output") || a.equals("--ext-diff") || a.equals("-O")
                    || a.startsWith("--open-files-in-pager") || a.startsWith("--exec")) return false;
        }
        return switch (sub) {
            case "branch" -> rest.stream().allMatch(a -> Set.of("-a", "-r", "-v", "-vv", "--all", "--remotes",
                    "--verbose", "--show-current", "--list", "-l").contains(a));
            case "remote" -> rest.stream().allMatch(a -> a.equals("-v") || a.equals("--verbose"));
            case "tag" -> rest.isEmpty() || ((rest.get(0).equals("-l") || rest.get(0).equals("--list"))
                    && rest.stream().noneMatch(a -> a.matches("-[dfasmFu].*|--(delete|force|annotate|sign|message|file).*")));
            case "stash" -> !rest.isEmpty() && rest.get(0).equals("list");
            case "config" -> !rest.isEmpty() && Set.of("--get", "--get-all", "--list", "-l", "--get-regexp")
                    .contains(rest.get(0));
            case "reflog" -> rest.isEmpty() || rest.get(0).equals("show") || rest.get(0).startsWith("-");
            default -> GIT_READ_ONLY.contains(sub);
        };
    }
}
