package cn.agentao.agent.cli;

import cn.agentao.agent.core.UsageTotals;
import cn.agentao.agent.core.repository.Page;
import cn.agentao.agent.core.repository.PruneResult;
import cn.agentao.agent.core.repository.PruneRule;
import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.core.repository.StoredSession;
import cn.agentao.agent.store.TranscriptRenderer;
import cn.agentao.agent.util.InertText;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import cn.agentao.agent.config.StoreSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code agent sessions list|show|export|delete|prune}: the stored sessions, for people. Everything is printed
 * to the command line's own out and err writers (this is not the ACP mode, where stdout is the protocol).
 */
@Command(name = "sessions", mixinStandardHelpOptions = true,
        description = "List, show, export, delete and prune stored sessions.",
        subcommands = {SessionsCommand.ListSessions.class, SessionsCommand.Show.class, SessionsCommand.Export.class,
                SessionsCommand.Delete.class, SessionsCommand.Prune.class})
public final class SessionsCommand implements Callable<Integer> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneOffset.UTC);

    @Spec
    CommandSpec spec;

    @Option(names = "--sessions-dir", paramLabel = "DIR", scope = ScopeType.INHERIT,
            description = {"Where conversations are kept (default:", "$AGENT_SESSIONS_DIR, else",
                    "$XDG_DATA_HOME/agent/sessions, else", "~/.local/share/agent/sessions)."})
    Path sessionsDir;

    private final Map<String, String> env;

    public SessionsCommand() {
        this(System.getenv());
    }

    /** @param env the environment that picks the default store directory */
    public SessionsCommand(Map<String, String> env) {
        this.env = env;
    }

    /** Without a subcommand: the usage. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    SessionRepository store(StoreOptions options) {
        return SessionRepositories.open(StoreSettings.from(env, options.commandLine(sessionsDir)));
    }

    /** A subcommand: failures become one line on err and exit code 1, not a stack trace. */
    @Command // for picocli-codegen: @Spec and @ParentCommand must sit in a command class
    abstract static class Action implements Callable<Integer> {
        @ParentCommand
        SessionsCommand parent;

        @Spec
        CommandSpec spec;

        @Mixin
        StoreOptions storeOptions = new StoreOptions();

        @Override
        public final Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try {
                return run(parent.store(storeOptions), out);
            } catch (SessionStoreException | IllegalArgumentException e) {
                spec.commandLine().getErr().println("agent sessions " + spec.name() + ": " + e.getMessage());
                return 1;
            } catch (IOException e) {
                spec.commandLine().getErr().println("agent sessions " + spec.name() + ": " + e);
                return 1;
            } finally {
                out.flush();
            }
        }

        abstract int run(SessionRepository store, PrintWriter out) throws IOException;
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List sessions, most recently updated first ('*' marks sessions open in a running agent).")
    static final class ListSessions extends Action {
        @Option(names = "--cwd", paramLabel = "DIR", description = "Only sessions started in DIR.")
        Path cwd;

        @Option(names = "--here", description = "Only sessions started in the current directory.")
        boolean here;

        @Option(names = {"-n", "--limit"}, paramLabel = "N", defaultValue = "20", description = "Show at most N sessions (default ${DEFAULT-VALUE}).")
        int limit;

        @Option(names = "--all", description = "Show every session.")
        boolean all;

        @Override
        int run(SessionRepository store, PrintWriter out) {
            if (limit < 1) throw new IllegalArgumentException("--limit must be at least 1");
            Path filter = here ? Path.of("").toAbsolutePath() : cwd;
            List<SessionSummary> shown = new ArrayList<>();
            String cursor = null;
            do {
                Page<SessionSummary> page = store.list(filter, cursor, all ? 500 : limit - shown.size());
                shown.addAll(page.items());
                cursor = page.nextCursor();
            } while (cursor != null && (all || shown.size() < limit));
            if (shown.isEmpty()) {
                out.println("No sessions" + (filter == null ? "" : " for " + filter) + " in " + store.location());
                return 0;
            }
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"ID", "UPDATED (UTC)", "RECORDS", "DIRECTORY", "TITLE"});
            for (SessionSummary s : shown) {
                rows.add(new String[] {
                        s.sessionId() + (store.isLive(s.sessionId()) ? "*" : ""),
                        TIME.format(s.updatedAt()),
                        s.readable() ? String.valueOf(s.records()) : "-",
                        s.cwd() == null ? "?" : s.cwd().toString(),
                        InertText.forTerminal(s.readable() ? (s.title() == null ? "" : s.title()) : "(unreadable: " + s.problem() + ")")});
            }
            printTable(out, rows);
            if (cursor != null) out.println("(more sessions: use --limit N or --all)");
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Print a session as a readable transcript, then its tokens and cost.")
    static final class Show extends Action {
        @Parameters(paramLabel = "ID", description = "Session id or a unique prefix of one.")
        String id;

        @Option(names = "--thoughts", description = "Include the agent's reasoning.")
        boolean thoughts;

        @Override
        int run(SessionRepository store, PrintWriter out) {
            StoredSession session = store.read(store.resolvePrefix(id));
            out.print(new TranscriptRenderer(TranscriptRenderer.Format.TEXT, thoughts).render(session));
            UsageTotals usage = UsageTotals.of(session.records());
            if (usage.calls() > 0) out.println("\nUsage: " + usage.describe() + ".");
            return 0;
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true, description = "Write a session out: its raw log (JSON Lines) or a Markdown transcript.")
    static final class Export extends Action {
        enum Format { jsonl, markdown }

        @Parameters(paramLabel = "ID", description = "Session id or a unique prefix of one.")
        String id;

        @Option(names = "--format", defaultValue = "jsonl", description = "The format: jsonl (default, the log byte for byte) or markdown.")
        Format format;

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to FILE instead of standard output.")
        Path output;

        @Option(names = "--thoughts", description = "Include the agent's reasoning (markdown only).")
        boolean thoughts;

        @Override
        int run(SessionRepository store, PrintWriter out) throws IOException {
            String sessionId = store.resolvePrefix(id);
            if (format == Format.markdown) {
                String md = new TranscriptRenderer(TranscriptRenderer.Format.MARKDOWN, thoughts).render(store.read(sessionId));
                if (output == null) {
                    out.print(md);
                } else {
                    Files.writeString(output, md, StandardCharsets.UTF_8);
                }
            } else if (output == null) {
                ByteArrayOutputStream log = new ByteArrayOutputStream();
                store.exportLog(sessionId, log);
                out.print(log.toString(StandardCharsets.UTF_8));
            } else {
                try (OutputStream file = Files.newOutputStream(output)) {
                    store.exportLog(sessionId, file);
                }
            }
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete sessions (never one that is open in a running agent).")
    static final class Delete extends Action {
        @Parameters(paramLabel = "ID", arity = "1..*", description = "Session ids or unique prefixes.")
        List<String> ids;

        @Override
        int run(SessionRepository store, PrintWriter out) {
            int failures = 0;
            for (String id : ids) {
                try {
                    String sessionId = store.resolvePrefix(id);
                    store.delete(sessionId);
                    out.println("deleted " + sessionId);
                } catch (SessionStoreException e) {
                    spec.commandLine().getErr().println("agent sessions delete: " + e.getMessage());
                    failures++;
                }
            }
            return failures == 0 ? 0 : 1;
        }
    }

    @Command(name = "prune", mixinStandardHelpOptions = true, description = "Delete old sessions. Sessions open in a running agent, and sessions this "
            + "agent cannot read, are left alone.")
    static final class Prune extends Action {
        static final class Rule {
            @Option(names = "--older-than", paramLabel = "AGE", converter = AgeConverter.class, required = true,
                    description = "Sessions not updated for AGE: e.g. 30d, 12h, 2w, 90m.")
            Duration olderThan;

            @Option(names = "--keep", paramLabel = "N", required = true,
                    description = "All but the N most recently updated sessions.")
            Integer keep;
        }

        @ArgGroup(exclusive = true, multiplicity = "1")
        Rule rule;

        @Option(names = "--dry-run", description = "Only show what would be deleted.")
        boolean dryRun;

        @Override
        int run(SessionRepository store, PrintWriter out) {
            PruneRule pruneRule = rule.olderThan != null ? PruneRule.olderThan(rule.olderThan) : PruneRule.keepNewest(rule.keep);
            PruneResult result = dryRun ? store.planPrune(pruneRule) : store.prune(pruneRule);
            for (SessionSummary s : result.removed()) {
                out.println((dryRun ? "would delete " : "deleted ") + s.sessionId() + "  " + TIME.format(s.updatedAt())
                        + (s.title() == null ? "" : "  " + s.title()));
            }
            for (SessionSummary s : result.skippedLive()) {
                out.println("kept " + s.sessionId() + " (open in a running agent)");
            }
            out.println((dryRun ? "Would delete " : "Deleted ") + result.removed().size() + " session"
                    + (result.removed().size() == 1 ? "" : "s") + ".");
            return 0;
        }
    }

    /** {@code 30d}, {@code 12h}, {@code 2w}, {@code 90m}, {@code 45s}, or an ISO-8601 duration ({@code P30D}). */
    static final class AgeConverter implements ITypeConverter<Duration> {
        private static final Pattern AGE = Pattern.compile("(\\d+)\\s*([smhdw])");

        @Override
        public Duration convert(String value) {
            Matcher m = AGE.matcher(value.trim().toLowerCase());
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    case "d" -> Duration.ofDays(n);
                    default -> Duration.ofDays(7 * n);
                };
            }
            try {
                return Duration.parse(value);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("'" + value + "' is not an age: use e.g. 30d, 12h, 2w or 90m");
            }
        }
    }

    private static void printTable(PrintWriter out, List<String[]> rows) {
        int columns = rows.getFirst().length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int c = 0; c < columns; c++) widths[c] = Math.max(widths[c], row[c].length());
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                line.append(c == columns - 1 ? row[c] : String.format("%-" + widths[c] + "s  ", row[c]));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
