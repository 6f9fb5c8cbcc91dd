package cn.agentao.agent.permission;

import cn.agentao.agent.permission.PermissionRequest.FetchUrl;
import cn.agentao.agent.permission.PermissionRequest.Generic;
import cn.agentao.agent.permission.PermissionRequest.ReadPath;
import cn.agentao.agent.permission.PermissionRequest.RunCommand;
import cn.agentao.agent.permission.PermissionRequest.WritePath;
import cn.agentao.agent.permission.PermissionRules.Rule;
import cn.agentao.agent.permission.PermissionRules.Subject;
import cn.agentao.agent.permission.ShellCommandLine.SimpleCommand;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Decides whether a tool call may run, must be asked about, or is refused. First match wins:
 * <ol>
 *   <li>the built-in blocklist of unrecoverable shell commands ({@link CommandBlocklist}) and the network
 *       guard for fetches ({@link NetworkGuard}): DENY in every mode;</li>
 *   <li>user deny rules, then remembered {@code reject_always} answers: DENY;</li>
 *   <li>the mode's refusals: in read-only and plan every write, every non-read-only command and every
 *       non-read-only MCP tool; in workspace-write {@code sudo} (and su, doas, pkexec) and {@code rm -rf}:
 *       DENY;</li>
 *   <li>the workspace boundary: a write outside every root, or a command whose cwd or path arguments lie
 *       outside, is asked every time (full-access lets read-only commands read outside); a read outside is
 *       asked every time except in full-access;</li>
 *   <li>user ask rules: ASK every time; user allow rules: ALLOW;</li>
 *   <li>remembered {@code allow_always} answers: ALLOW;</li>
 *   <li>the default: reads and read-only commands are allowed in every mode; file writes inside the
 *       workspace are allowed in workspace-write and full-access, except {@link ProtectedPaths} (the
 *       agent's and git's own files), which are asked every time in both; other commands, web fetches and MCP tools that change things are
 *       asked in workspace-write and allowed in full-access (sudo is still asked); web fetches are asked in
 *       read-only and plan.</li>
 * </ol>
 *
 * <p>A command that will run in the OS sandbox (any mode but full-access, when a sandbox is available) is judged
 * after step 2 by {@link #decideSandboxed}: it runs without a question, since the sandbox enforces the mode,
 * except for workspace-write's refusals and user ask rules. A command to run outside the sandbox in
 * workspace-write (the model asked, or it failed inside for lack of access) is judged as without a sandbox but
 * always asked, unless a rule or a remembered answer allows it.
 */
public final class PermissionEngine {
    private final PermissionRules userRules;
    private final NetworkGuard guard;
    private final BooleanSupplier sandboxAvailable;

    /** An engine for a machine without an OS sandbox for commands. */
    public PermissionEngine(PermissionRules userRules, NetworkGuard guard) {
        this(userRules, guard, () -> false);
    }

    /** @param sandboxAvailable whether commands can run in the OS sandbox (asked on the first command only) */
    public PermissionEngine(PermissionRules userRules, NetworkGuard guard, BooleanSupplier sandboxAvailable) {
        this.userRules = userRules;
        this.guard = guard;
        this.sandboxAvailable = sandboxAvailable;
    }

    public NetworkGuard networkGuard() { return guard; }

    public PermissionRules userRules() { return userRules; }

    public Decision decide(PermissionRequest req, Mode mode, Workspace ws, PermissionMemory memory) {
        return switch (req) {
            case RunCommand rc -> decideCommand(rc, mode, ws, memory);
            case ReadPath rp -> decideRead(rp, mode, ws, memory);
            case WritePath wp -> decideWrite(wp, mode, ws, memory);
            case FetchUrl fu -> decideFetch(fu, mode, memory);
            case Generic g -> decideGeneric(g, mode, memory);
        };
    }

    private Decision decideCommand(RunCommand rc, Mode mode, Workspace ws, PermissionMemory memory) {
        Path cwd = absolute(ws, rc.cwd());
        ShellCommandLine line = ShellCommandLine.parse(rc.commandLine());
        Optional<CommandBlocklist.Finding> blocked = CommandBlocklist.check(line, cwd, ws.home());
        if (blocked.isPresent() && blocked.get().certain()) {
            return Decision.deny("Refused: " + blocked.get().what() + " cannot be undone, so it never runs, in any mode.");
        }
        List<SimpleCommand> commands = line.effectiveCommands();
        Subject subject = new Subject(rc.tool(), commands.stream().map(SimpleCommand::text).toList(),
                rc.commandLine().strip(), List.of(), List.of(), null);
        Optional<Decision> denied = denyRulesAndMemory(rc, subject, memory);
        if (denied.isPresent()) return denied.get();
        Optional<Decision> sandboxed = decideSandboxed(rc, mode, subject, commands, blocked);
        if (sandboxed.isPresent()) return sandboxed.get();
        boolean leavesSandbox = !rc.sandbox() && mode == Mode.WORKSPACE_WRITE && sandboxAvailable.getAsBoolean();

        boolean readOnly = ReadOnlyCommands.isReadOnly(rc.commandLine(), cwd);
        if (mode.isReadOnly() && !readOnly) {
            return Decision.deny(modeName(mode) + " mode runs only read-only commands (no chaining, pipes, "
                    + "redirections or substitutions); `" + rc.commandLine().strip() + "` is not one.");
        }
        boolean privileged = commands.stream().anyMatch(c -> c.privileged() || EffectiveCommands.PRIVILEGE.contains(c.program()));
        if (mode == Mode.WORKSPACE_WRITE) {
            Optional<Decision> refused = workspaceWriteRefusal(commands);
            if (refused.isPresent()) return refused.get();
        }

        if (blocked.isPresent()) { // the blocklist could not tell: a run-time value may make it unrecoverable
            return Decision.askEveryTime("The command may be unrecoverable: " + blocked.get().what() + ".");
        }
        Optional<String> outside = ws.contains(cwd) ? CommandPaths.firstOutside(commands, cwd, ws) : Optional.of(cwd.toString());
        if (outside.isPresent() && !(mode == Mode.FULL_ACCESS && readOnly)) {
            return Decision.askEveryTime("The command touches " + outside.get() + ", outside the workspace.");
        }
        Rule ask = userRules.matchAsk(subject);
        if (ask != null) return Decision.askEveryTime("Your permission rules ask before this command.");
        if (allowedByRules(subject, commands, cwd)) return Decision.allow("Allowed by your permission rules.");
        if (memory.recall(rc).orElse(null) == PermissionMemory.Answer.ALLOW) {
            return Decision.allow("Allowed earlier in this session (" + memory.describeScope(rc) + ").");
        }
        if (leavesSandbox) {
            return new Decision(Verdict.ASK, "It would run outside the sandbox, with network access and write access "
                    + "beyond the workspace.", memory.canRemember(rc));
        }
        if (readOnly) return Decision.allow("A read-only command.");
        boolean rememberable = memory.canRemember(rc);
        if (mode == Mode.FULL_ACCESS && !privileged) return Decision.allow("Full-access mode.");
        String why = privileged ? "The command runs with elevated privileges." : "The command may change things.";
        return new Decision(Verdict.ASK, why, rememberable);
    }

    /**
     * A command for the OS sandbox (not full-access, none asked to leave it, a sandbox available): read-only and
     * plan run it without a question (the sandbox lets nothing change); workspace-write too, after its refusals
     * of sudo and rm -rf, and a blocklist finding it could not be sure of is asked; a user ask rule still asks. Read-only and plan never run a command outside the sandbox.
     * Empty: judged as without a sandbox.
     */
    private Optional<Decision> decideSandboxed(RunCommand rc, Mode mode, Subject subject, List<SimpleCommand> commands,
                                               Optional<CommandBlocklist.Finding> uncertain) {
        if (mode == Mode.FULL_ACCESS || !sandboxAvailable.getAsBoolean()) return Optional.empty();
        if (!rc.sandbox()) {
            return mode.isReadOnly() ? Optional.of(Decision.deny(modeName(mode) + " mode runs commands only inside the "
                    + "sandbox, where nothing can change; run it without asking to leave the sandbox.")) : Optional.empty();
        }
        if (mode == Mode.WORKSPACE_WRITE) {
            Optional<Decision> refused = workspaceWriteRefusal(commands);
            if (refused.isPresent()) return refused;
            if (uncertain.isPresent()) { // the sandbox still lets it wreck the workspace
                return Optional.of(Decision.askEveryTime("The command may be unrecoverable: " + uncertain.get().what() + "."));
            }
        }
        if (userRules.matchAsk(subject) != null) return Optional.of(Decision.askEveryTime("Your permission rules ask before this command."));
        return Optional.of(Decision.allow(mode.isReadOnly()
                ? "Runs in the read-only sandbox: nothing can change." : "Runs in the workspace sandbox."));
    }

    /** Workspace-write's refusals, sandbox or not: sudo (and su, doas, …) and rm -rf. */
    private static Optional<Decision> workspaceWriteRefusal(List<SimpleCommand> commands) {
        if (commands.stream().anyMatch(c -> c.privileged() || EffectiveCommands.PRIVILEGE.contains(c.program()))) {
            return Optional.of(Decision.deny("Workspace-write mode never runs commands with sudo, su or doas."));
        }
        if (commands.stream().anyMatch(CommandBlocklist::isForcedRecursiveRm)) {
            return Optional.of(Decision.deny("Workspace-write mode never runs rm -rf; delete specific files instead."));
        }
        return Optional.empty();
    }

    private Decision decideRead(ReadPath rp, Mode mode, Workspace ws, PermissionMemory memory) {
        Path path = absolute(ws, rp.path());
        Optional<Decision> denied = denyRulesAndMemory(rp, pathSubject(rp.tool(), path, ws), memory);
        if (denied.isPresent()) return denied.get();
        Path real = Workspace.realPath(path).orElse(path);
        if (ProtectedPaths.isSecretName(String.valueOf(path.getFileName())) || ProtectedPaths.isSecretName(String.valueOf(real.getFileName()))) {
            return Decision.askEveryTime("Reads " + path + ", a .env file, which may hold keys: asked every time, in every mode.");
        }
        boolean inside = ws.contains(path);
        if (!inside && mode != Mode.FULL_ACCESS) {
            return Decision.askEveryTime("Reads " + path + ", outside the workspace.");
        }
        if (userRules.matchAsk(pathSubject(rp.tool(), path, ws)) != null) {
            return Decision.askEveryTime("Your permission rules ask before reading " + path + ".");
        }
        return Decision.allow(inside ? "A read inside the workspace." : "Full-access mode reads anywhere.");
    }

    private Decision decideWrite(WritePath wp, Mode mode, Workspace ws, PermissionMemory memory) {
        Path path = absolute(ws, wp.path());
        Subject subject = pathSubject(wp.tool(), path, ws);
        Optional<Decision> denied = denyRulesAndMemory(wp, subject, memory);
        if (denied.isPresent()) return denied.get();
        if (mode.isReadOnly()) {
            return Decision.deny(modeName(mode) + " mode does not change files; " + path + " was not written.");
        }
        if (!ws.contains(path)) {
            return Decision.askEveryTime("Writes " + path + ", outside the workspace.");
        }
        Optional<String> protectedPath = ProtectedPaths.reason(path, ws);
        if (protectedPath.isPresent()) {
            return Decision.askEveryTime("Writes " + path + ": " + protectedPath.get() + ". Asked every time.");
        }
        if (userRules.matchAsk(subject) != null) {
            return Decision.askEveryTime("Your permission rules ask before writing " + path + ".");
        }
        return Decision.allow("A write inside the workspace.");
    }

    private Decision decideFetch(FetchUrl fu, Mode mode, PermissionMemory memory) {
        Optional<String> refused = guard.refusal(fu.url());
        if (refused.isPresent()) return Decision.deny("Refused to fetch " + fu.url() + ": " + refused.get() + ".");
        Subject subject = new Subject(fu.tool(), List.of(), null, List.of(), List.of(), fu.url());
        Optional<Decision> denied = denyRulesAndMemory(fu, subject, memory);
        if (denied.isPresent()) return denied.get();
        if (userRules.matchAsk(subject) != null) return Decision.askEveryTime("Your permission rules ask before this fetch.");
        if (userRules.allows(subject)) return Decision.allow("Allowed by your permission rules.");
        if (memory.recall(fu).orElse(null) == PermissionMemory.Answer.ALLOW) {
            return Decision.allow("Allowed earlier in this session (" + memory.describeScope(fu) + ").");
        }
        if (mode == Mode.FULL_ACCESS) return Decision.allow("Full-access mode.");
        return new Decision(Verdict.ASK, "Fetches " + fu.url() + " from the internet.", memory.canRemember(fu));
    }

    private Decision decideGeneric(Generic g, Mode mode, PermissionMemory memory) {
        Subject subject = new Subject(g.tool(), List.of(), null, List.of(), List.of(), null);
        Optional<Decision> denied = denyRulesAndMemory(g, subject, memory);
        if (denied.isPresent()) return denied.get();
        if (!g.readOnly() && mode.isReadOnly()) {
            return Decision.deny(modeName(mode) + " mode does not run " + g.tool() + ", which can change things.");
        }
        if (userRules.matchAsk(subject) != null) return Decision.askEveryTime("Your permission rules ask before " + g.tool() + ".");
        if (userRules.allows(subject)) return Decision.allow("Allowed by your permission rules.");
        if (g.readOnly()) return Decision.allow(g.tool() + " only reads.");
        if (g.autoApply()) return Decision.allow(g.tool() + " is marked auto_apply by its host.");
        if (memory.recall(g).orElse(null) == PermissionMemory.Answer.ALLOW) {
            return Decision.allow("Allowed earlier in this session.");
        }
        if (mode == Mode.FULL_ACCESS) return Decision.allow("Full-access mode.");
        return Decision.ask(g.destructive() ? g.tool() + " may delete or overwrite things." : g.tool() + " may change things.");
    }

    // ---- helpers ----

    private Optional<Decision> denyRulesAndMemory(PermissionRequest req, Subject subject, PermissionMemory memory) {
        if (userRules.matchDeny(subject) != null) return Optional.of(Decision.deny("Refused by your permission rules."));
        if (memory.recall(req).orElse(null) == PermissionMemory.Answer.REJECT) {
            return Optional.of(Decision.deny("You rejected this earlier in this session (" + memory.describeScope(req) + ")."));
        }
        return Optional.empty();
    }

    /** Allow rules cover the line when each command is allowed by a rule, or is {@code cd} or read-only. */
    private boolean allowedByRules(Subject subject, List<SimpleCommand> commands, Path cwd) {
        List<String> needing = new ArrayList<>();
        for (SimpleCommand c : ReadOnlyCommands.needingApproval(commands, cwd)) needing.add(c.text());
        if (needing.isEmpty() && !commands.isEmpty()) needing.add(commands.get(0).text());
        return userRules.allows(new Subject(subject.tool(), needing, subject.commandLine(), List.of(), List.of(), null));
    }

    private static Subject pathSubject(String tool, Path path, Workspace ws) {
        Set<String> written = new LinkedHashSet<>();
        Set<String> real = new LinkedHashSet<>();
        Path normalized = path.normalize();
        written.add(normalized.toString());
        addRelativeForms(written, normalized, ws.roots());
        Workspace.realPath(path).ifPresent(r -> {
            real.add(r.toString());
            addRelativeForms(real, r, ws.roots().stream().map(x -> Workspace.realPath(x).orElse(x)).toList());
        });
        written.addAll(real);
        return new Subject(tool, List.of(), null, List.copyOf(written), List.copyOf(real), null);
    }

    private static void addRelativeForms(Set<String> out, Path p, List<Path> roots) {
        for (Path root : roots) {
            if (p.startsWith(root) && !p.equals(root)) out.add(root.relativize(p).toString());
        }
    }

    private static Path absolute(Workspace ws, Path p) {
        return p.isAbsolute() ? p : ws.absolutize(p.toString());
    }

    /** "Read-only", "Plan": the mode id as the start of a sentence. */
    private static String modeName(Mode mode) {
        return Character.toUpperCase(mode.id().charAt(0)) + mode.id().substring(1);
    }
}
