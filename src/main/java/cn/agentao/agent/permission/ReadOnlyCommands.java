package cn.agentao.agent.permission;

import cn.agentao.agent.permission.GnuOptions.Parsed;
import cn.agentao.agent.permission.GnuOptions.Spec;
import cn.agentao.agent.permission.ShellCommandLine.SimpleCommand;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Recognizes shell command lines that only read: one known command (no path in its name) with arguments that
 * make it neither write, run other programs, set anything nor read a list of further files, and none of
 * {@code ; & | $ < >}, backticks, braces or newlines anywhere in the line (so no chaining, substitution,
 * redirection or brace expansion). Paths the command reads are judged separately ({@link CommandPaths}).
 *
 * <p>Options are read as the command reads them ({@link GnuOptions}): {@code sort -uoFILE},
 * {@code sort --o=FILE}, {@code sort --compress-prog=sh}, {@code date --se=…}, {@code git grep -Osh} and
 * {@code git grep --open=sh} are all recognised as the option that writes, sets or runs.
 */
final class ReadOnlyCommands {
    private ReadOnlyCommands() {}

    /** Characters whose presence anywhere makes a line not read-only. */
    static final String METACHARACTERS = ";&|$<>`{}\n\r";

    /** How a command's options are read, and whether a parsed command line of it only reads. */
    record Rule(Spec spec, Predicate<Parsed> readOnly) {}

    private static final Spec NO_OPTIONS = Spec.of("");
    private static final Rule ANY = new Rule(NO_OPTIONS, p -> true);

    private static final Spec SORT = Spec.of("koStT", "output=", "compress-program=", "temporary-directory=",
            "files0-from=", "key=", "field-separator=", "buffer-size=", "random-source=", "batch-size=", "parallel=",
            "sort=", "check=?", "unique", "reverse", "merge", "stable", "debug", "zero-terminated");
    private static final Spec DATE = Spec.of("dfrs", "date=", "file=", "reference=", "set=", "iso-8601=?",
            "rfc-3339=", "resolution", "rfc-email", "utc", "universal", "debug").withOptional("I");
    private static final Spec FILE = Spec.of("eFfmP", "compile", "files-from=", "magic-file=", "separator=",
            "parameter=", "exclude=", "exclude-quiet=", "mime", "mime-type", "mime-encoding", "brief");
    private static final Spec RG = Spec.of("ABCEefgjMmrTtd", "pre=", "pre-glob=", "hostname-bin=", "follow",
            "regexp=", "file=", "glob=", "iglob=", "type=", "type-not=", "replace=", "max-depth=", "max-count=",
            "context=", "after-context=", "before-context=", "encoding=", "threads=", "hyperlink-format=");
    private static final Spec GREP = Spec.of("ABCDdefm", "recursive", "dereference-recursive", "regexp=", "file=",
            "devices=", "directories=", "include=", "exclude=", "exclude-from=", "exclude-dir=", "max-count=",
            "context=", "after-context=", "before-context=", "label=", "binary-files=", "color=?", "colour=?");
    private static final Spec FILES0 = Spec.of("BdtX", "files0-from=", "exclude-from=", "exclude=", "max-depth=",
            "block-size=", "threshold=", "time=?", "time-style=", "dereference", "count-links");
    private static final Spec CHECKSUM = Spec.of("", "check", "tag", "binary", "text", "zero");
    private static final Spec UNIQ = Spec.of("fsw", "skip-fields=", "skip-chars=", "check-chars=", "group=?",
            "all-repeated=?");
    private static final Spec DIFF = Spec.of("CDFILSUWXx", "recursive", "from-file=", "to-file=", "exclude=",
            "exclude-from=", "starting-file=", "label=", "ignore-matching-lines=", "show-function-line=",
            "context=?", "unified=?", "width=", "ifdef=", "no-dereference");
    private static final Spec LS = Spec.of("ITw", "recursive", "dereference", "ignore=", "hide=", "tabsize=",
            "width=", "format=", "sort=", "time=", "time-style=", "color=?", "hyperlink=?", "indicator-style=",
            "quoting-style=", "block-size=");
    private static final Spec TREE = Spec.of("", "fromfile", "filelimit", "charset", "timefmt", "sort");

    private static final Map<String, Rule> COMMANDS = commands();

    private static Map<String, Rule> commands() {
        Map<String, Rule> m = new HashMap<>();
        for (String c : List.of("cat", "head", "tail", "pwd", "echo", "printf", "which", "type", "stat", "df",
                "realpath", "readlink", "basename", "dirname", "cmp", "whoami", "id", "uname", "true", "false",
                "cut", "nl", "tac", "rev", "fold", "column", "strings", "od", "hexdump", "jq", "test")) {
            m.put(c, ANY);
        }
        m.put("ls", new Rule(LS, p -> true));
        m.put("diff", new Rule(DIFF, p -> true));
        for (String c : List.of("grep", "egrep", "fgrep")) m.put(c, new Rule(GREP, p -> true));
        // reading a list of further file names from a file: those reads are not judged, so not provably read-only
        for (String c : List.of("wc", "du")) m.put(c, new Rule(FILES0, p -> !p.has("--files0-from")));
        for (String c : List.of("md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum",
                "cksum")) {
            m.put(c, new Rule(CHECKSUM, p -> !p.has("-c", "--check")));
        }
        m.put("file", new Rule(FILE, p -> !p.has("-C", "--compile", "-f", "--files-from")));
        // date sets the clock with -s/--set, and with an operand that is not a +FORMAT
        m.put("date", new Rule(DATE, p -> !p.has("-s", "--set")
                && p.operands().stream().allMatch(o -> o.startsWith("+"))));
        m.put("rg", new Rule(RG, p -> !p.has("--pre", "--hostname-bin")));
        m.put("tree", new Rule(TREE, p -> !p.has("-o", "-R", "--fromfile")));
        m.put("sort", new Rule(SORT, p -> !p.has("-o", "--output", "--compress-program", "-T",
                "--temporary-directory", "--files0-from")));
        m.put("uniq", new Rule(UNIQ, p -> p.operands().size() <= 1)); // a second operand is the output file
        return Map.copyOf(m);
    }

    /** find's actions that run, write or delete, and its reading of start points from a file. */
    private static final Set<String> FIND_ACTIONS = Set.of("-exec", "-execdir", "-ok", "-okdir", "-delete",
            "-fprint", "-fprint0", "-fprintf", "-fls", "-files0-from");

    /** Global git options that change nothing; every other one (-C, -c, --git-dir, ...) is not judged. */
    private static final Set<String> GIT_GLOBAL = Set.of("--no-pager", "-P", "--no-optional-locks",
            "--no-replace-objects", "--literal-pathspecs", "--no-advice");
    private static final Set<String> GIT_READ_ONLY = Set.of(
            "status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog",
            "cat-file", "ls-tree", "grep", "rev-list", "merge-base", "whatchanged", "reflog");
    /** Options of git's reading subcommands that write files or run a program named on the command line. */
    private static final Spec GIT_SUB = Spec.of("", "output=", "ext-diff", "open-files-in-pager=?", "exec=");
    /** git grep: -O[cmd] and --open-files-in-pager[=cmd] run cmd on the matching files. */
    private static final Spec GIT_GREP = Spec.of("efABCm", "output=", "ext-diff", "open-files-in-pager=?", "exec=")
            .withOptional("O");
    private static final Set<String> GIT_FORBIDDEN = Set.of("--output", "--ext-diff", "--open-files-in-pager", "--exec");

    /** Whether the whole line is one read-only command (run in {@code cwd}; null when unknown). */
    static boolean isReadOnly(String commandLine, Path cwd) {
        for (int i = 0; i < commandLine.length(); i++) {
            if (METACHARACTERS.indexOf(commandLine.charAt(i)) >= 0) return false;
        }
        List<SimpleCommand> commands = ShellCommandLine.parse(commandLine).commands();
        if (commands.size() != 1) return false;
        return isReadOnly(commands.get(0), cwd);
    }

    /** Whether one simple command only reads, when run in {@code cwd} (null: unknown, git is then not judged). */
    static boolean isReadOnly(SimpleCommand c, Path cwd) {
        if (!c.assignments().isEmpty() || !c.redirects().isEmpty() || c.words().isEmpty()) return false;
        String name = c.words().get(0);
        if (name.contains("/")) return false;
        if (name.equals("find")) return c.args().stream().noneMatch(FIND_ACTIONS::contains);
        if (name.equals("git")) return readOnlyGit(c.args()) && cwd != null && !GitDiscovery.usesDisguisedGitDir(cwd);
        Rule rule = COMMANDS.get(name);
        return rule != null && rule.readOnly().test(GnuOptions.parse(c.args(), rule.spec()));
    }

    /**
     * The commands of a line that need an approval of their own: all but {@code cd} and read-only ones. After a
     * change of directory in the line, git is never counted as read-only (where it runs is not known).
     */
    static List<SimpleCommand> needingApproval(List<SimpleCommand> commands, Path cwd) {
        boolean movesAround = commands.stream().anyMatch(c -> Set.of("cd", "pushd", "popd").contains(c.program()));
        List<SimpleCommand> out = new ArrayList<>();
        for (SimpleCommand c : commands) {
            if (c.program().equals("cd") || isReadOnly(c, movesAround ? null : cwd)) continue;
            out.add(c);
        }
        return out;
    }

    /** How {@code program}'s options are read, for judging the paths it is given; a flag-only reading if unknown. */
    static Spec spec(String program) {
        Rule r = COMMANDS.get(program);
        return r == null ? NO_OPTIONS : r.spec();
    }

    /**
     * Git subcommands that only read, without options that write files or run programs. The repository's own
     * config could still name programs: writes into {@code .git} are never silent, and a git directory under
     * another name ({@link GitDiscovery}) or named by {@code -C}, {@code --git-dir}, {@code --work-tree} or
     * {@code GIT_DIR=} makes the command not read-only.
     */
    private static boolean readOnlyGit(List<String> args) {
        int i = 0;
        while (i < args.size() && args.get(i).startsWith("-")) {
            if (!GIT_GLOBAL.contains(args.get(i))) return false;
            i++;
        }
        if (i >= args.size()) return false;
        String sub = args.get(i);
        List<String> rest = args.subList(i + 1, args.size());
        Parsed p = GnuOptions.parse(rest, sub.equals("grep") ? GIT_GREP : GIT_SUB);
        if (p.options().stream().anyMatch(o -> o.names().stream().anyMatch(GIT_FORBIDDEN::contains))) return false;
        if (sub.equals("grep") && p.has("-O")) return false;
        return switch (sub) {
            case "branch" -> rest.stream().allMatch(a -> Set.of("-a", "-r", "-v", "-vv", "--all", "--remotes",
                    "--verbose", "--show-current", "--list", "-l").contains(a));
            case "remote" -> rest.stream().allMatch(a -> a.equals("-v") || a.equals("--verbose"));
            case "tag" -> rest.isEmpty() || ((rest.get(0).equals("-l") || rest.get(0).equals("--list"))
                    && rest.subList(1, rest.size()).stream().allMatch(a -> !a.startsWith("-")
                    || a.matches("-[ni]|--(ignore-case|sort=.*|format=.*|contains|no-contains|merged|no-merged|points-at|column|no-column)")));
            case "stash" -> !rest.isEmpty() && rest.get(0).equals("list");
            case "config" -> !rest.isEmpty() && Set.of("--get", "--get-all", "--list", "-l", "--get-regexp")
                    .contains(rest.get(0));
            case "reflog" -> rest.isEmpty() || rest.get(0).equals("show") || rest.get(0).startsWith("-");
            default -> GIT_READ_ONLY.contains(sub);
        };
    }
}
