package cn.agentao.agent.core;

import cn.agentao.agent.permission.Decision;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.permission.PermissionEngine;
import cn.agentao.agent.permission.PermissionMemory;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.permission.Verdict;
import cn.agentao.agent.permission.Workspace;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.sandbox.Confinement;
import cn.agentao.agent.sandbox.SandboxPolicy;
import cn.agentao.agent.sandbox.Sandboxes;
import cn.agentao.agent.core.tool.SandboxedInvocation;
import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolEnvironment;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.hook.HookOutcome;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.core.host.HostEnvironment;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.core.tool.ToolSources;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.ToolSignal;
import cn.agentao.agent.core.tool.ShellTool;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Runs the model's tool calls the way the user sees them: started (pending) → the permission engine → the host's
 * approval question with the same toolCallId when it asks → {@code in_progress} with bounded, throttled progress →
 * {@code completed} or {@code failed}. Whatever source a tool comes from, it takes these steps. Every call ends with a
 * result for the model.
 */
public final class ToolCallExecutor implements ToolCallRunner {
    private static final Logger log = LoggerFactory.getLogger(ToolCallExecutor.class);
    static final long PROGRESS_INTERVAL_MS = 100;
    static final int MAX_RESULT_CHARS = 100_000;
    /** Why a session whose questions nobody answers for this machine's user never runs a command outside the sandbox. */
    private static final String NOBODY_FOR_USER = "nobody in this session may let a command out of the sandbox for this "
            + "machine's user; it runs inside, seeing only the workspace.";

    private final ToolSource builtins;
    private final ShellTool shell;
    private final PermissionEngine permissions;
    private final Sandboxes sandboxes;

    /**
     * @param builtins the process's built-in tools, the first tool source of every session
     * @param shell    the tool the user's own command lines run through
     */
    public ToolCallExecutor(ToolSource builtins, ShellTool shell, PermissionEngine permissions, Sandboxes sandboxes) {
        this.builtins = builtins;
        this.shell = shell;
        this.permissions = permissions;
        this.sandboxes = sandboxes;
    }

    /** The built-in tools, the first tool source of every session. */
    public ToolSource builtins() { return builtins; }

    @Override
    public ToolExecutionResultMessage run(Session rt, List<ToolSource> sources, ToolExecutionRequest call, Cancellation cancel) {
        String id = call.id() != null && !call.id().isBlank() ? call.id() : "call_" + UUID.randomUUID();
        Tool tool = ToolSources.find(sources, call.name()).orElse(null);
        JsonNode args = parseArgs(call.arguments());
        String forModel;
        List<Content> images = new ArrayList<>();
        if (tool == null) {
            forModel = refuse(rt, id, ToolKind.OTHER, call.name(), args, "There is no tool named \"" + call.name() + "\".");
        } else if (args == null) {
            forModel = refuse(rt, id, tool.kind(), tool.name(), null, "The arguments are not valid JSON: " + abbreviate(call.arguments()));
        } else {
            forModel = call(rt, id, tool, args, ctx -> tool.prepare(args, ctx), cancel, images);
        }
        if (images.isEmpty()) return ToolExecutionResultMessage.from(call.id() == null ? id : call.id(), call.name(), forModel);
        images.add(0, TextContent.from(forModel)); // the turn moves the image where the provider takes it
        return ToolExecutionResultMessage.builder().id(call.id() == null ? id : call.id()).toolName(call.name())
                .contents(images).build();
    }

    /**
     * The user's own command line (not a model call): through the built-in shell, with the same display, sandbox and
     * permission steps as the model's commands. Returns its output, secrets masked.
     */
    public String runUserCommand(Session rt, String commandLine, Cancellation cancel) {
        return call(rt, "user-" + UUID.randomUUID(), shell, Json.object().put("command", commandLine),
                ctx -> shell.prepareCommand(commandLine, ctx), cancel, new ArrayList<>());
    }

    /** How a call's invocation is made from the session's context: from the model's arguments, or the user's command. */
    private interface Preparation {
        ToolInvocation prepare(ToolContext ctx) throws ToolException;
    }

    /**
     * Takes one call through every step; returns the text for the model (or the user), secrets masked, and adds the
     * image it produced, if any, to {@code images}.
     */
    private String call(Session rt, String id, Tool tool, JsonNode args, Preparation preparation, Cancellation cancel,
                        List<Content> images) {
        Workspace ws = Workspace.of(rt.cwd(), rt.additionalDirectories());
        Mode mode = rt.permissionMode();
        HostEnvironment here = rt.host().environment();
        ToolEnvironment env = new ToolEnvironment(rt.checkpoints().guard(here.files(cancel)), here.commands(rt.children(), cancel), (question, options) -> {
            try {
                return rt.host().askUser(new Question(question, options), cancel);
            } catch (CancelledException e) {
                return Optional.empty();
            }
        });
        boolean forUser = rt.host().answersForUser();
        SimpleToolContext ctx = SimpleToolContext.of(rt.id(), ws, env, cancel, () -> confinement(mode, ws, forUser), rt.background());
        ToolInvocation invocation;
        try {
            invocation = preparation.prepare(ctx);
        } catch (ToolException e) {
            return refuse(rt, id, tool.kind(), tool.name(), args, e.getMessage());
        }

        AgentEvent.ToolCallStarted started = new AgentEvent.ToolCallStarted(id, invocation.title(), tool.kind(), ToolCallStatus.PENDING,
                null, invocation.locations().isEmpty() ? null : invocation.locations(), args, null);
        show(rt, started);

        if (invocation.permission() instanceof PermissionRequest.RunCommand) tellSandboxStatus(rt, mode, ws);
        Optional<Path> target = writeTarget(invocation.permission(), ws);
        Decision decision = permissions.decide(invocation.permission(), mode, ws, rt.permissions());
        HookOutcome hook = decision.verdict() == Verdict.DENY ? HookOutcome.NONE // the engine's deny needs no hook
                : SessionHooks.preToolUse(rt, tool.name(), id, args, cancel);
        if (cancel.isCancelled()) {
            return finish(rt, id, ToolCallStatus.FAILED, List.of(ToolCallContent.text("Cancelled.")), null,
                    "Not run: the user cancelled the turn.");
        }
        if (hook.denied()) {
            return finish(rt, id, ToolCallStatus.FAILED, List.of(ToolCallContent.text("Denied by a hook: " + hook.reason())), null,
                    "Blocked by the user's PreToolUse hook: " + hook.reason() + " Do not retry this call; tell the user or choose another way.");
        }
        decision = withHook(decision, hook, invocation.permission());
        if (!forUser && decision.verdict() == Verdict.ASK && invocation.permission() instanceof PermissionRequest.RunCommand rc
                && !rc.sandbox() && sandboxes.available()) {
            decision = Decision.deny(NOBODY_FOR_USER);
        }
        log.debug("session {}: tool call {} ({}) in mode {}: {}", rt.id(), id, tool.name(), mode.id(),
                decision.verdict());
        if (decision.verdict() == Verdict.DENY) {
            return finish(rt, id, ToolCallStatus.FAILED, List.of(ToolCallContent.text("Denied: " + decision.reason())), null,
                    "Permission denied: " + decision.reason() + " Do not retry this call; tell the user or choose another way.");
        }
        if (decision.verdict() == Verdict.ASK) {
            String answer;
            try {
                answer = askPermission(rt, started, invocation.permission(), decision, cancel);
            } catch (CancelledException e) {
                return finish(rt, id, ToolCallStatus.FAILED, List.of(ToolCallContent.text("Cancelled while asking for permission.")), null,
                        "Not run: the user cancelled the turn.");
            }
            log.debug("session {}: tool call {}: the user answered {}", rt.id(), id, answer);
            if (!answer.startsWith("allow")) {
                return finish(rt, id, ToolCallStatus.FAILED, List.of(ToolCallContent.text("Rejected by the user.")), null,
                        "The user rejected this tool call. Do not retry it; ask the user how to proceed if needed.");
            }
        }

        if (target != null && !target.equals(writeTarget(invocation.permission(), ws))) {
            String why = "The target of this write changed while it was being decided (a link now points elsewhere); "
                    + "nothing was written.";
            return finish(rt, id, ToolCallStatus.FAILED, List.of(ToolCallContent.text(why)), null, "Error: " + why);
        }
        update(rt, AgentEvent.ToolCallUpdated.status(id, ToolCallStatus.IN_PROGRESS));
        ThrottledProgress progress = new ThrottledProgress(rt, id);
        long runStart = System.nanoTime();
        ToolResult result = execute(tool, invocation, progress, cancel);
        if (result != null && !cancel.isCancelled() && mode == Mode.WORKSPACE_WRITE && result.isError()
                && result.signal() instanceof ToolSignal.SandboxDenied && invocation instanceof SandboxedInvocation s) {
            result = forUser ? offerOutsideSandbox(rt, started, tool, s, result, ws, progress, cancel)
                    : withNote(result, "[Not run outside the sandbox: " + NOBODY_FOR_USER + "]");
        } else if (result != null && !cancel.isCancelled() && mode.isReadOnly() && result.isError()
                && result.signal() instanceof ToolSignal.SandboxDenied d && !d.hiddenReads().isEmpty()
                && invocation instanceof SandboxedInvocation s) {
            result = forUser ? offerReadable(rt, started, tool, s, d.hiddenReads().get(0), result, mode, ws, progress, cancel)
                    : withNote(result, "[Not run again with " + d.hiddenReads().get(0) + " shown: nobody in this session "
                    + "may let a command see more of this machine for its user; it sees only the workspace.]");
        }
        if (cancel.isCancelled() || result == null) {
            return finish(rt, id, ToolCallStatus.FAILED, progress.last(List.of(ToolCallContent.text("Cancelled."))), null,
                    "Not run to the end: the user cancelled the turn.");
        }
        log.debug("session {}: tool call {} ({}) {} in {} ms", rt.id(), id, tool.name(),
                result.isError() ? "failed" : "completed", (System.nanoTime() - runStart) / 1_000_000);
        if (result.signal() instanceof ToolSignal.Plan plan) showPlan(rt, plan.entries());
        if (result.signal() instanceof ToolSignal.Image image) images.add(ImageContent.from(image.data(), image.mimeType()));
        HookOutcome after = SessionHooks.postToolUse(rt, tool.name(), id, args, result, cancel);
        if (after.denied() || !after.context().isEmpty()) result = withNote(result, afterNote(after));
        ToolCallStatus status = result.isError() ? ToolCallStatus.FAILED : ToolCallStatus.COMPLETED;
        List<ToolCallContent> display = result.display().isEmpty() ? progress.last(List.of()) : result.display();
        return finish(rt, id, status, display, result.rawOutput(), bounded(result.forModel()));
    }

    /** Runs an approved invocation; null when it was interrupted (cancelled). */
    private static ToolResult execute(Tool tool, ToolInvocation invocation, ThrottledProgress progress, Cancellation cancel) {
        Thread worker = Thread.currentThread();
        try (Cancellation.Registration ignored = cancel.onCancel(worker::interrupt)) {
            return invocation.run(progress);
        } catch (InterruptedException e) {
            return null;
        } catch (Exception e) {
            log.debug("tool {} failed", tool.name(), e);
            return ToolResult.error("Error: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        } finally {
            Thread.interrupted(); // a cancel that landed after the tool finished must not leak into the turn
        }
    }

    /**
     * A command failed inside the sandbox for lack of access (workspace-write): "run it outside the sandbox?", with
     * the four options, unless the engine refuses or a rule or remembered answer settles it. The model hears both
     * runs, or why there was no second one.
     */
    private ToolResult offerOutsideSandbox(Session rt, AgentEvent.ToolCallStarted started, Tool tool, SandboxedInvocation inside,
                                           ToolResult failed, Workspace ws, ThrottledProgress progress, Cancellation cancel) {
        ToolInvocation outside = inside.outsideSandbox();
        return runAgainIfAllowed(rt, started, tool, failed, outside, outside.permission(), Mode.WORKSPACE_WRITE, ws,
                "Run outside the sandbox? " + started.title() + " failed inside it", "Not run outside the sandbox",
                "[The user declined to run it outside the sandbox; do not retry it that way.]", "Run again outside the sandbox",
                progress, cancel);
    }

    /**
     * A command failed in the read-only sandbox (read-only and plan) because it read a path the sandbox hides: "let
     * the sandbox read it?", judged as a read of that path (asked every time outside the workspace, refused by a
     * deny rule). Approved, the command runs again in the same read-only sandbox with that file or directory shown
     * read-only; never writable, never outside the sandbox. The model hears both runs, or why there was no second.
     */
    private ToolResult offerReadable(Session rt, AgentEvent.ToolCallStarted started, Tool tool, SandboxedInvocation inside, Path path,
                                     ToolResult failed, Mode mode, Workspace ws, ThrottledProgress progress, Cancellation cancel) {
        return runAgainIfAllowed(rt, started, tool, failed, inside.withReadable(path), new PermissionRequest.ReadPath(tool.name(), path),
                mode, ws, "Let the sandbox read " + path + " (read-only)? " + started.title() + " failed without it",
                "Not run again with " + path + " shown", "[The user declined to let the sandbox read " + path + "; do not retry it.]",
                "Run again in the read-only sandbox with " + path + " shown read-only", progress, cancel);
    }

    /**
     * Runs {@code again} after {@code failed} when the engine allows {@code request}, asking the user ({@code question})
     * when it says to ask; null when cancelled. The model hears both runs, or why there was no second.
     */
    private ToolResult runAgainIfAllowed(Session rt, AgentEvent.ToolCallStarted started, Tool tool, ToolResult failed,
                                         ToolInvocation again, PermissionRequest request, Mode mode, Workspace ws, String question,
                                         String notRun, String declined, String ranAgain, ThrottledProgress progress,
                                         Cancellation cancel) {
        Decision decision = permissions.decide(request, mode, ws, rt.permissions());
        if (decision.verdict() == Verdict.DENY) {
            return withNote(failed, "[" + notRun + ": " + decision.reason() + "]");
        }
        if (decision.verdict() == Verdict.ASK) {
            AgentEvent.ToolCallStarted asked = new AgentEvent.ToolCallStarted(started.toolCallId(), question, started.kind(),
                    started.status(), progress.last(List.of()), started.locations(), started.rawInput(), null);
            String answer;
            try {
                answer = askPermission(rt, asked, request, decision, cancel);
            } catch (CancelledException e) {
                return null;
            }
            if (!answer.startsWith("allow")) return withNote(failed, declined);
        }
        ToolResult second = execute(tool, again, progress, cancel);
        if (second == null) return null;
        String why = decision.verdict() == Verdict.ASK ? "the user approved" : decision.reason();
        return new ToolResult(failed.forModel() + "\n\n" + ranAgain + " (" + why + "):\n"
                + second.forModel(), second.display(), second.isError(), second.rawOutput());
    }

    /**
     * The permission decision after the PreToolUse hooks: their deny was taken before; "ask" (or a hook that failed
     * or timed out: never a silent allow) turns an allow into a question; "allow" answers the question the engine
     * would ask, except one about running a command outside the sandbox. The engine's deny always stands.
     */
    private Decision withHook(Decision decision, HookOutcome hook, PermissionRequest request) {
        if (decision.verdict() == Verdict.DENY) return decision;
        if (hook.verdict() == HookOutcome.Verdict.ASK || hook.failed()) {
            return decision.verdict() == Verdict.ASK ? decision : Decision.askEveryTime(hook.failed()
                    ? "a PreToolUse hook did not answer" : "a PreToolUse hook asks: " + hook.reason());
        }
        boolean leavesSandbox = request instanceof PermissionRequest.RunCommand rc && !rc.sandbox() && sandboxes.available();
        if (hook.verdict() == HookOutcome.Verdict.ALLOW && decision.verdict() == Verdict.ASK && !leavesSandbox) {
            return Decision.allow("allowed by a PreToolUse hook");
        }
        return decision;
    }

    /** What the PostToolUse hooks tell the model about the call's result. */
    private static String afterNote(HookOutcome after) {
        StringBuilder note = new StringBuilder();
        if (after.denied()) note.append("[PostToolUse hook: ").append(after.reason()).append("]");
        for (String c : after.context()) note.append(note.isEmpty() ? "" : "\n").append("[PostToolUse hook context: ").append(c).append("]");
        return note.toString();
    }

    private static ToolResult withNote(ToolResult r, String note) {
        return new ToolResult(r.forModel() + "\n" + note, r.display(), r.isError(), r.rawOutput());
    }

    /** The sandbox a command of this call runs in, or null (full-access, or no sandbox here). */
    private Confinement confinement(Mode mode, Workspace ws, boolean forUser) {
        Optional<SandboxPolicy> policy = sandboxes.policy(mode, ws.roots(), forUser);
        if (policy.isEmpty()) return null;
        return sandboxes.sandbox().map(s -> new Confinement(s, policy.get())).orElse(null);
    }

    /** Once per session, on its first command: how commands are confined, logged; or, without a sandbox, a notice. */
    private void tellSandboxStatus(Session rt, Mode mode, Workspace ws) {
        if (!rt.claimSandboxStatus()) return;
        if (!sandboxes.available()) {
            rt.notice(sandboxes.notice());
            return;
        }
        SandboxPolicy policy = SandboxPolicy.forMode(Mode.WORKSPACE_WRITE, ws.roots()).orElseThrow();
        log.info("session {}: commands run in {} except in full-access mode; in workspace-write {}; in read-only and plan {}",
                rt.id(), sandboxes.sandbox().orElseThrow().kind(), policy.describe(),
                SandboxPolicy.forMode(Mode.READ_ONLY, ws.roots()).orElseThrow().describe());
    }

    /** Asks the host with the standard options; returns the chosen option id, or "reject_once" on anything else. */
    private String askPermission(Session rt, AgentEvent.ToolCallStarted started, PermissionRequest request, Decision decision,
                                 Cancellation cancel) throws CancelledException {
        PermissionMemory memory = rt.permissions();
        boolean canRemember = decision.rememberable() && memory.canRemember(request);
        List<ApprovalOption> options = new ArrayList<>();
        options.add(ApprovalOption.of(ApprovalOption.Kind.ALLOW_ONCE, "Allow once"));
        if (canRemember) options.add(ApprovalOption.of(ApprovalOption.Kind.ALLOW_ALWAYS, "Always allow " + memory.describeScope(request)));
        options.add(ApprovalOption.of(ApprovalOption.Kind.REJECT_ONCE, "Reject"));
        if (canRemember) options.add(ApprovalOption.of(ApprovalOption.Kind.REJECT_ALWAYS, "Always reject " + memory.describeScope(request)));
        ApprovalRequest question = new ApprovalRequest(started, options);
        ApprovalAnswer answer = rt.host().askApproval(question, cancel);
        if (answer.dismissed()) {
            if (cancel.isCancelled()) throw new CancelledException();
            return ApprovalOption.Kind.REJECT_ONCE.wire();
        }
        Optional<ApprovalOption> chosen = question.option(answer.optionId());
        if (chosen.isEmpty()) return ApprovalOption.Kind.REJECT_ONCE.wire();
        String option = chosen.get().optionId();
        if (option.endsWith("_always") && canRemember && memory.record(request, option)) SessionRecords.state(rt);
        return option;
    }

    /**
     * Where a file write would land, links resolved (empty when they cannot be), or null for other requests.
     * Taken before the decision and again after it: a link swapped while the user was asked must not send the
     * approved write elsewhere.
     */
    private static Optional<Path> writeTarget(PermissionRequest request, Workspace ws) {
        if (!(request instanceof PermissionRequest.WritePath wp)) return null;
        return Workspace.realPath(wp.path().isAbsolute() ? wp.path() : ws.absolutize(wp.path().toString()));
    }

    private String refuse(Session rt, String id, ToolKind kind, String title,
                                              JsonNode args, String message) {
        show(rt, new AgentEvent.ToolCallStarted(id, title, kind, ToolCallStatus.PENDING, null, null, args, null));
        return finish(rt, id, ToolCallStatus.FAILED, List.of(ToolCallContent.text(message)), null, "Error: " + message);
    }

    /** The last update of a call and its result for the model, with the session's secrets masked in both. */
    private String finish(Session rt, String id, ToolCallStatus status,
                                              List<ToolCallContent> display, JsonNode rawOutput, String forModel) {
        ToolOutputMask mask = new ToolOutputMask(rt.children().credentials());
        update(rt, new AgentEvent.ToolCallUpdated(id, null, null, status, mask.content(display), null, null, mask.json(rawOutput)));
        return mask.text(forModel);
    }

    private void show(Session rt, AgentEvent.ToolCallStarted started) {
        rt.emit(started);
        SessionRecords.toolCall(rt, started);
    }

    private void update(Session rt, AgentEvent.ToolCallUpdated u) {
        rt.emit(u);
        if (u.status() == ToolCallStatus.COMPLETED || u.status() == ToolCallStatus.FAILED) SessionRecords.toolCallUpdate(rt, u);
    }

    private void showPlan(Session rt, List<PlanEntry> entries) {
        rt.emit(new AgentEvent.PlanChanged(entries));
        SessionRecords.plan(rt, entries);
    }

    private static JsonNode parseArgs(String raw) {
        if (raw == null || raw.isBlank()) return Json.object();
        try {
            JsonNode n = Json.mapper().readTree(raw);
            return n != null && n.isObject() ? n : null;
        } catch (Exception e) {
            return null;
        }
    }

    private static String abbreviate(String s) {
        if (s == null) return "(none)";
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }

    static String bounded(String forModel) {
        if (forModel == null) return "";
        if (forModel.length() <= MAX_RESULT_CHARS) return forModel;
        return forModel.substring(0, MAX_RESULT_CHARS) + "\n… (" + (forModel.length() - MAX_RESULT_CHARS)
                + " more characters cut; narrow the request to see them)";
    }

    /** Sends progress at most every {@value #PROGRESS_INTERVAL_MS} ms; the tools keep what they send bounded. */
    private final class ThrottledProgress implements ToolProgress {
        private final Session rt;
        private final String id;
        private long lastSent;
        private volatile List<ToolCallContent> latest;

        private final ToolOutputMask mask;

        ThrottledProgress(Session rt, String id) {
            this.rt = rt;
            this.id = id;
            this.mask = new ToolOutputMask(rt.children().credentials());
        }

        @Override
        public synchronized void show(List<ToolCallContent> whole) {
            latest = List.copyOf(mask.content(whole));
            long now = System.currentTimeMillis();
            if (now - lastSent < PROGRESS_INTERVAL_MS) return;
            lastSent = now;
            update(rt, new AgentEvent.ToolCallUpdated(id, null, null, ToolCallStatus.IN_PROGRESS, latest, null, null, null));
        }

        List<ToolCallContent> last(List<ToolCallContent> fallback) {
            List<ToolCallContent> l = latest;
            return l == null ? fallback : l;
        }
    }

}
