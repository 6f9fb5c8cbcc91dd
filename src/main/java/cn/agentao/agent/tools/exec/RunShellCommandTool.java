package cn.agentao.agent.tools.exec;

import cn.agentao.agent.core.tool.BackgroundProcesses;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.core.tool.SandboxedInvocation;
import cn.agentao.agent.core.tool.ShellTool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.ToolSignal;
import cn.agentao.agent.core.tool.local.BoundedOutput;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.tools.ToolPaths;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.sandbox.Confinement;
import cn.agentao.agent.sandbox.CreatedProtectedNames;
import cn.agentao.agent.sandbox.PlantedGitCode;
import cn.agentao.agent.sandbox.Sandbox;
import cn.agentao.agent.sandbox.SandboxDenials;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code run_shell_command}: {@code bash -c} in the working directory (or a given one), with a timeout
 * (default {@value #DEFAULT_TIMEOUT_S} s, at most {@value #MAX_TIMEOUT_S} s) and bounded output. Output streams
 * as progress while it runs (or the client shows its own terminal); on timeout or cancellation the whole
 * process tree is killed.
 */
public final class RunShellCommandTool implements ShellTool {
    public static final String NAME = "run_shell_command";
    static final int DEFAULT_TIMEOUT_S = 120;
    static final int MAX_TIMEOUT_S = 600;
    /** Characters of output the model gets (beginning and end). */
    static final int OUTPUT_LIMIT = 32 * 1024;
    /**
     * Characters of output the user's own command ({@code !command}) shows them whole; past it, its beginning and end.
     * The conversation keeps {@link #OUTPUT_LIMIT} of it, as of the model's commands.
     */
    static final int USER_OUTPUT_LIMIT = 4 * 1024 * 1024;
    /** How long a background start waits for the command's first output (or its end) before it returns. */
    static final long FIRST_OUTPUT_MS = 1000;

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "command":{"type":"string","description":"The bash command line to run."},
              "directory":{"type":"string","description":"Directory to run in: absolute, or relative to the working directory (default: the working directory)."},
              "timeout":{"type":"integer","minimum":1,"maximum":600,"description":"Seconds before the command is killed (default 120, at most 600)."},
              "description":{"type":"string","description":"A few words saying what the command does, shown to the user."},
              "sandbox":{"type":"boolean","description":"false to ask the user up front to run it outside the sandbox, when it needs the network or writes outside the workspace; say why in description (default true)."},
              "background":{"type":"boolean","description":"true to start it and return at once with an id and its first output, for a server, watcher or long build; read it with shell_output, end it with shell_kill; no timeout applies (default false)."}
            },"required":["command"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Run a bash command line (bash -c) and return its combined stdout and stderr and exit code. Runs "
                + "non-interactively (no stdin); killed after the timeout (default 120 s, max 600 s). Long output "
                + "keeps its beginning and end. Prefer read_file, grep, glob and edit for files. Except in full-access "
                + "mode it runs in an OS sandbox: it sees the system's programs, the workspace and tool chain caches only (other "
                + "directories and the home are absent, .env files read as empty), no network, a private /tmp, and writes "
                + "only inside the workspace (none in read-only and plan modes; never to .git, .agent, .env, AGENTS.md). "
                + "With background: true it keeps running (same sandbox) until shell_kill or the end of the session, at most "
                + BackgroundProcesses.LIMIT + " at once.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.EXECUTE; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        String command = ToolArgs.string(args, "command");
        if (command.isBlank()) throw new ToolException(NAME + ": 'command' must not be empty");
        String d = ToolArgs.string(args, "directory");
        Path dir = d == null ? ctx.cwd().normalize() : ToolPaths.resolve(ctx, NAME, "directory", d);
        if (!Files.isDirectory(dir)) throw new ToolException(NAME + ": directory not found: " + dir);
        Integer timeout = ToolArgs.integer(args, "timeout");
        boolean outside = args.has("sandbox") && !args.get("sandbox").asBoolean(true);
        boolean background = args.has("background") && args.get("background").asBoolean(false);
        if (background) BackgroundReport.table(NAME, ctx);
        return new Invocation(ctx, command, dir, Duration.ofSeconds(timeout == null ? DEFAULT_TIMEOUT_S : timeout),
                ToolArgs.string(args, "description"), outside, List.of(), background, false);
    }

    @Override
    public ToolInvocation prepareCommand(String commandLine, ToolContext ctx) throws ToolException {
        Invocation i = (Invocation) prepare(Json.object().put("command", commandLine), ctx);
        return new Invocation(i.ctx, i.command, i.dir, i.timeout, i.what, i.outside, i.readable, i.background, true);
    }

    /**
     * @param outside  run outside the sandbox (asked for, or approved after a failure inside)
     * @param readable paths the user let this command read besides what the sandbox shows (read-only)
     * @param background start it in the session's background table and return at once
     * @param user     the user's own command: its output is shown them whole (up to {@link #USER_OUTPUT_LIMIT})
     */
    private record Invocation(ToolContext ctx, String command, Path dir, Duration timeout, String what, boolean outside,
                              List<Path> readable, boolean background, boolean user) implements SandboxedInvocation {
        @Override
        public String title() {
            // the whole command, never cut short: the title is what a person approves (each door shows it inert)
            String oneLine = command.strip().replace("\n", " ⏎ ");
            String where = dir.equals(ctx.cwd().normalize()) ? "" : " in " + ToolPaths.display(ctx, dir);
            return (what != null && !what.isBlank() ? what.strip() + ": " : "") + (background ? "Start in the background `" : "Run `")
                    + oneLine + "`" + where;
        }

        @Override
        public List<ToolCallLocation> locations() { return List.of(); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.RunCommand(NAME, command, dir, !outside); }

        @Override
        public ToolInvocation outsideSandbox() {
            return new Invocation(ctx, command, dir, timeout, what, true, List.of(), background, user);
        }

        @Override
        public ToolInvocation withReadable(Path path) {
            List<Path> more = new java.util.ArrayList<>(readable);
            more.add(path);
            return new Invocation(ctx, command, dir, timeout, what, false, List.copyOf(more), background, user);
        }

        @Override
        public ToolResult run(ToolProgress progress) throws Exception {
            CommandRunner.Listener listener = new CommandRunner.Listener() {
                @Override
                public void output(String tail) {
                    progress.show(List.of(ToolCallContent.text(tail)));
                }

                @Override
                public void terminal(String terminalId) {
                    progress.show(List.of(new ToolCallContent.Terminal(terminalId, null)));
                }
            };
            Confinement box = outside ? null : ctx.sandbox();
            if (box != null && !readable.isEmpty() && !box.policy().writable()) { // never a writable path, never outside
                List<Path> shown = new java.util.ArrayList<>(box.policy().readablePaths());
                shown.addAll(readable);
                box = new Confinement(box.sandbox(), box.policy().withPaths(shown, box.policy().writablePaths()));
            }
            if (background) return startInBackground(box);
            // what a writable sandbox lets a command leave for the user's next git command is disarmed afterwards
            PlantedGitCode planted = box != null && box.policy().writable() ? PlantedGitCode.before(box.policy().roots(), dir) : null;
            CreatedProtectedNames created = box != null && box.policy().writable() ? CreatedProtectedNames.before(box.policy().roots()) : null;
            CommandRunner.Result r;
            List<String> disarmed = List.of();
            List<String> moved = List.of();
            try {
                r = ctx.commands().run(new CommandRunner.Spec(command, dir, timeout, user ? USER_OUTPUT_LIMIT : OUTPUT_LIMIT, box),
                        listener, ctx.cancellation());
            } catch (Sandbox.SandboxException e) {
                r = new CommandRunner.Result(null, null, "", false, false, false, null, e.getMessage());
            } finally {
                if (created != null) moved = created.after(); // first: a .git moved aside is then disarmed as a new repository
                if (planted != null) disarmed = planted.after();
            }
            Confinement used = box;
            boolean denied = box != null && !r.timedOut() && !r.cancelled()
                    && (r.sandboxFailure() != null || !moved.isEmpty() || SandboxDenials.looksDenied(r.exitCode(), r.output(), p -> used.sandbox().hides(p, used.policy())));
            List<Path> hidden = denied && !box.policy().writable()
                    ? SandboxDenials.hiddenReads(r.exitCode(), r.output(), p -> used.sandbox().hides(p, used.policy())) : List.of();

            String kept = user ? BoundedOutput.headAndTail(r.output(), OUTPUT_LIMIT) : r.output();
            StringBuilder forModel = new StringBuilder(kept);
            if (!kept.isEmpty() && !kept.endsWith("\n")) forModel.append('\n');
            if (r.sandboxFailure() != null) {
                forModel.append("[The sandbox could not start the command, so it did not run: ").append(r.sandboxFailure()).append("]");
            } else if (r.timedOut()) {
                forModel.append("[Timed out after ").append(timeout.toSeconds()).append(" s; the command and its child "
                        + "processes were killed.]");
            } else if (r.cancelled()) {
                forModel.append("[Cancelled; the command and its child processes were killed.]");
            } else if (r.exitCode() != null) {
                forModel.append("[Exit code ").append(r.exitCode()).append(']');
            } else {
                forModel.append("[Ended by signal ").append(r.signal() == null ? "unknown" : r.signal()).append(']');
            }
            if (denied) forModel.append("\n[It ran in the OS sandbox: ").append(box.policy().describe()).append(".]");
            if (!disarmed.isEmpty()) forModel.append('\n').append(PlantedGitCode.describe(disarmed));
            if (!moved.isEmpty()) forModel.append('\n').append(CreatedProtectedNames.describe(moved));
            boolean failed = !moved.isEmpty() || r.timedOut() || r.cancelled() || r.exitCode() == null || r.exitCode() != 0 || r.sandboxFailure() != null;
            List<ToolCallContent> display = r.terminalId() != null
                    ? List.of(new ToolCallContent.Terminal(r.terminalId(), null))
                    : List.of(ToolCallContent.text(!user && r.output().length() > LocalCommandRunner.DISPLAY_CHARS
                    ? r.output().substring(r.output().length() - LocalCommandRunner.DISPLAY_CHARS) : r.output()));
            if (kept.length() < r.output().length()) { // the user saw it all; the model gets its beginning and end
                display = new java.util.ArrayList<>(display);
                display.add(ToolCallContent.text("[The conversation keeps the first " + OUTPUT_LIMIT / 4 / 1024 + " KiB and the last "
                        + (OUTPUT_LIMIT - OUTPUT_LIMIT / 4) / 1024 + " KiB of this output (" + r.output().length()
                        + " characters): that is all the model sees of it.]"));
            }
            if (!disarmed.isEmpty()) {
                display = new java.util.ArrayList<>(display);
                display.add(ToolCallContent.text(PlantedGitCode.describe(disarmed)));
            }
            if (!moved.isEmpty()) {
                display = new java.util.ArrayList<>(display);
                display.add(ToolCallContent.text(CreatedProtectedNames.describe(moved)));
            }
            ObjectNode raw = Json.object();
            if (r.exitCode() != null) raw.put("exitCode", r.exitCode());
            if (r.signal() != null) raw.put("signal", r.signal());
            raw.put("timedOut", r.timedOut()).put("cancelled", r.cancelled()).put("truncated", r.truncated());
            raw.put("sandboxed", box != null);
            if (denied) raw.put("sandboxDenied", true);
            return new ToolResult(forModel.toString(), display, failed, raw, denied ? new ToolSignal.SandboxDenied(hidden) : null);
        }

        /**
         * Starts it in the session's background table and returns its first output (what it printed within
         * {@link #FIRST_OUTPUT_MS}). What a writable sandbox lets it leave for the user's next git command is
         * disarmed once it ended (told with the output that shows the end).
         */
        private ToolResult startInBackground(Confinement box) throws Exception {
            PlantedGitCode planted = box != null && box.policy().writable() ? PlantedGitCode.before(box.policy().roots(), dir) : null;
            CreatedProtectedNames created = box != null && box.policy().writable() ? CreatedProtectedNames.before(box.policy().roots()) : null;
            java.util.function.Supplier<List<String>> onEnd = () -> {
                List<String> notes = new java.util.ArrayList<>();
                List<String> moved = created == null ? List.of() : created.after(); // first, as for a command in the foreground
                List<String> disarmed = planted == null ? List.of() : planted.after();
                if (!moved.isEmpty()) notes.add(CreatedProtectedNames.describe(moved));
                if (!disarmed.isEmpty()) notes.add(PlantedGitCode.describe(disarmed));
                return notes;
            };
            BackgroundProcesses.Entry e;
            try {
                e = BackgroundReport.table(NAME, ctx).start(command, dir, box != null,
                        () -> ctx.commands().start(new CommandRunner.Spec(command, dir, timeout, OUTPUT_LIMIT, box)), onEnd);
            } catch (ToolException | Sandbox.SandboxException ex) {
                return ToolResult.error(ex.getMessage());
            }
            e.process().awaitOutput(FIRST_OUTPUT_MS);
            ToolResult started = BackgroundReport.result("Started in the background as " + e.describe() + ". Output so far:\n", e, e.process().read());
            String terminal = e.process().terminalId();
            if (terminal == null) return started;
            List<ToolCallContent> display = new java.util.ArrayList<>(); // the client shows it live in its terminal
            display.add(new ToolCallContent.Terminal(terminal, null));
            display.addAll(started.display());
            return new ToolResult(started.forModel(), display, started.isError(), started.rawOutput(), started.signal());
        }
    }
}
