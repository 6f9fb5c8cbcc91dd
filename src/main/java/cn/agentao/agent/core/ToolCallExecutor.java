package cn.agentao.agent.core;

import cn.agentao.agent.permission.Decision;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.permission.PermissionEngine;
import cn.agentao.agent.permission.PermissionMemory;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.permission.Verdict;
import cn.agentao.agent.permission.Workspace;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.protocol.PlanEntry;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.protocol.ToolCallContent;
import cn.agentao.agent.protocol.ToolCallStatus;
import cn.agentao.agent.protocol.ToolKind;
import cn.agentao.agent.sandbox.Confinement;
import cn.agentao.agent.sandbox.SandboxPolicy;
import cn.agentao.agent.sandbox.Sandboxes;
import cn.agentao.agent.store.RecordTypes;
import cn.agentao.agent.tools.SandboxedInvocation;
import cn.agentao.agent.tools.SimpleToolContext;
import cn.agentao.agent.tools.TodoWriteTool;
import cn.agentao.agent.tools.Tool;
import cn.agentao.agent.tools.ToolEnvironment;
import cn.agentao.agent.tools.ToolException;
import cn.agentao.agent.tools.ToolInvocation;
import cn.agentao.agent.tools.ToolRegistry;
import cn.agentao.agent.tools.ToolResult;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import cn.agentao.agent.connect.smcp.SmcpOffice;
import cn.agentao.agent.connect.smcp.SmcpToolAdapter;
import dev.langchain4j.agent.tool.ToolSpecification;
import java.util.function.Consumer;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Runs the model's tool calls the way the user sees them: {@code tool_call} (pending) → the permission engine →
 * {@code session/request_permission} with the same toolCallId when it asks → {@code in_progress} with bounded,
 * throttled progress → {@code completed} or {@code failed}. Every call ends with a result for the model.
 */
public final class ToolCallExecutor implements ToolCallRunner {
    private static final Logger log = LoggerFactory.getLogger(ToolCallExecutor.class);
    static final long PROGRESS_INTERVAL_MS = 100;
    static final int MAX_RESULT_CHARS = 100_000;

    /** How long the first session waits for the office to be joined (it goes on either way). */
    private static final java.time.Duration OFFICE_READY_WAIT = java.time.Duration.ofSeconds(5);

    private final ToolRegistry registry;
    private volatile SmcpOffice office;
    private volatile List<String> officeProblems = List.of();
    private final java.util.Map<SessionRuntime, Consumer<String>> officeNotices = new java.util.concurrent.ConcurrentHashMap<>();
    private final PermissionEngine permissions;
    private final Sandboxes sandboxes;

    /** Commands run without an OS sandbox. */
    public ToolCallExecutor(ToolRegistry registry, PermissionEngine permissions) {
        this(registry, permissions, Sandboxes.none());
    }

    public ToolCallExecutor(ToolRegistry registry, PermissionEngine permissions, Sandboxes sandboxes) {
        this.registry = registry;
        this.permissions = permissions;
        this.sandboxes = sandboxes;
    }

    /** This runner with the tools of an SMCP office too (every session shares the one office connection). */
    public ToolCallExecutor withOffice(SmcpOffice office) {
        this.office = office;
        return this;
    }

    /** The SMCP office, or null. */
    public SmcpOffice office() { return office; }

    /** Problems of the {@code smcp} section of config.json, told to every session (no office is joined). */
    public ToolCallExecutor withOfficeProblems(List<String> problems) {
        this.officeProblems = List.copyOf(problems);
        return this;
    }

    @Override
    public void opened(SessionRuntime rt) {
        officeProblems.forEach(p -> rt.notice("Configuration: " + p));
        SmcpOffice o = office;
        if (o == null) return;
        Consumer<String> notices = rt::notice;
        officeNotices.put(rt, notices);
        o.addNoticeListener(notices);
        o.start();
        o.awaitSettled(OFFICE_READY_WAIT); // the first session waits a moment for the Computers' tools
    }

    @Override
    public void closed(SessionRuntime rt) {
        Consumer<String> notices = officeNotices.remove(rt);
        if (notices != null && office != null) office.removeNoticeListener(notices);
    }

    @Override
    public List<ToolSpecification> specifications(SessionRuntime runtime) {
        List<ToolSpecification> specs = new ArrayList<>();
        for (Tool t : registry.all()) {
            specs.add(ToolSpecification.builder().name(t.name()).description(t.description())
                    .parameters(ToolSchemas.objectSchema(t.inputSchema())).build());
        }
        if (runtime.mcp() != null) specs.addAll(runtime.mcp().toolSpecifications());
        if (office != null) specs.addAll(office.toolSpecifications());
        return specs;
    }

    @Override
    public ToolExecutionResultMessage run(SessionRuntime rt, ToolExecutionRequest call, Cancellation cancel) {
        String id = call.id() != null && !call.id().isBlank() ? call.id() : "call_" + UUID.randomUUID();
        Tool tool = registry.find(call.name())
                .or(() -> rt.mcp() == null ? java.util.Optional.empty() : rt.mcp().tool(call.name()).map(t -> new McpToolAdapter(rt.mcp(), t)))
                .or(() -> office == null ? java.util.Optional.empty() : office.tool(call.name()).map(t -> new SmcpToolAdapter(office, t)))
                .orElse(null);
        JsonNode args = parseArgs(call.arguments());
        if (tool == null) {
            return refuse(rt, id, call, ToolKind.OTHER, call.name(), args, "There is no tool named \"" + call.name() + "\".");
        }
        if (args == null) {
            return refuse(rt, id, call, tool.kind(), tool.name(), null, "The arguments are not valid JSON: " + abbreviate(call.arguments()));
        }
        Workspace ws = Workspace.of(rt.session().cwd(), rt.session().additionalDirectories());
        Mode mode = rt.session().permissionMode();
        ToolEnvironment env = ToolEnvironment.forClient(rt.client().capabilities(),
                (method, params) -> rt.client().call(method, params, cancel), rt.session().id(), rt.children());
        SimpleToolContext ctx = SimpleToolContext.of(rt.session().id(), ws, env, cancel, () -> confinement(mode, ws));
        ToolInvocation invocation;
        try {
            invocation = tool.prepare(args, ctx);
        } catch (ToolException e) {
            return refuse(rt, id, call, tool.kind(), tool.name(), args, e.getMessage());
        }

        SessionUpdate.ToolCall started = new SessionUpdate.ToolCall(id, invocation.title(), tool.kind(), ToolCallStatus.PENDING,
                null, invocation.locations().isEmpty() ? null : invocation.locations(), args, null);
        show(rt, started);

        if (invocation.permission() instanceof PermissionRequest.RunCommand) tellSandboxStatus(rt, mode, ws);
        Optional<Path> target = writeTarget(invocation.permission(), ws);
        Decision decision = permissions.decide(invocation.permission(), mode, ws, rt.permissions());
        log.debug("session {}: tool call {} ({}) in mode {}: {}", rt.session().id(), id, tool.name(), mode.id(),
                decision.verdict());
        if (decision.verdict() == Verdict.DENY) {
            return finish(rt, id, call, ToolCallStatus.FAILED, List.of(ToolCallContent.text("Denied: " + decision.reason())), null,
                    "Permission denied: " + decision.reason() + " Do not retry this call; tell the user or choose another way.");
        }
        if (decision.verdict() == Verdict.ASK) {
            String answer;
            try {
                answer = askPermission(rt, started, invocation.permission(), decision, cancel);
            } catch (CancelledException e) {
                return finish(rt, id, call, ToolCallStatus.FAILED, List.of(ToolCallContent.text("Cancelled while asking for permission.")), null,
                        "Not run: the user cancelled the turn.");
            }
            log.debug("session {}: tool call {}: the user answered {}", rt.session().id(), id, answer);
            if (!answer.startsWith("allow")) {
                return finish(rt, id, call, ToolCallStatus.FAILED, List.of(ToolCallContent.text("Rejected by the user.")), null,
                        "The user rejected this tool call. Do not retry it; ask the user how to proceed if needed.");
            }
        }

        if (target != null && !target.equals(writeTarget(invocation.permission(), ws))) {
            String why = "The target of this write changed while it was being decided (a link now points elsewhere); "
                    + "nothing was written.";
            return finish(rt, id, call, ToolCallStatus.FAILED, List.of(ToolCallContent.text(why)), null, "Error: " + why);
        }
        update(rt, SessionUpdate.ToolCallUpdate.status(id, ToolCallStatus.IN_PROGRESS));
        ThrottledProgress progress = new ThrottledProgress(rt, id);
        long runStart = System.nanoTime();
        ToolResult result = execute(tool, invocation, progress, cancel);
        if (result != null && !cancel.isCancelled() && mode == Mode.WORKSPACE_WRITE && result.isError()
                && invocation instanceof SandboxedInvocation s && s.deniedBySandbox(result)) {
            result = offerOutsideSandbox(rt, started, tool, s, result, ws, progress, cancel);
        }
        if (cancel.isCancelled() || result == null) {
            return finish(rt, id, call, ToolCallStatus.FAILED, progress.last(List.of(ToolCallContent.text("Cancelled."))), null,
                    "Not run to the end: the user cancelled the turn.");
        }
        log.debug("session {}: tool call {} ({}) {} in {} ms", rt.session().id(), id, tool.name(),
                result.isError() ? "failed" : "completed", (System.nanoTime() - runStart) / 1_000_000);
        TodoWriteTool.planEntries(result.rawOutput()).ifPresent(entries -> showPlan(rt, entries));
        ToolCallStatus status = result.isError() ? ToolCallStatus.FAILED : ToolCallStatus.COMPLETED;
        List<ToolCallContent> display = result.display().isEmpty() ? progress.last(List.of()) : result.display();
        return finish(rt, id, call, status, display, result.rawOutput(), bounded(result.forModel()));
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
    private ToolResult offerOutsideSandbox(SessionRuntime rt, SessionUpdate.ToolCall started, Tool tool, SandboxedInvocation inside,
                                           ToolResult failed, Workspace ws, ThrottledProgress progress, Cancellation cancel) {
        ToolInvocation outside = inside.outsideSandbox();
        PermissionRequest request = outside.permission();
        Decision decision = permissions.decide(request, Mode.WORKSPACE_WRITE, ws, rt.permissions());
        if (decision.verdict() == Verdict.DENY) {
            return withNote(failed, "[Not run outside the sandbox: " + decision.reason() + "]");
        }
        if (decision.verdict() == Verdict.ASK) {
            SessionUpdate.ToolCall question = new SessionUpdate.ToolCall(started.toolCallId(),
                    "Run outside the sandbox? " + started.title() + " failed inside it", started.kind(), started.status(),
                    progress.last(List.of()), started.locations(), started.rawInput(), null);
            String answer;
            try {
                answer = askPermission(rt, question, request, decision, cancel);
            } catch (CancelledException e) {
                return null;
            }
            if (!answer.startsWith("allow")) {
                return withNote(failed, "[The user declined to run it outside the sandbox; do not retry it that way.]");
            }
        }
        ToolResult second = execute(tool, outside, progress, cancel);
        if (second == null) return null;
        String why = decision.verdict() == Verdict.ASK ? "the user approved" : decision.reason();
        return new ToolResult(failed.forModel() + "\n\nRun again outside the sandbox (" + why + "):\n"
                + second.forModel(), second.display(), second.isError(), second.rawOutput());
    }

    private static ToolResult withNote(ToolResult r, String note) {
        return new ToolResult(r.forModel() + "\n" + note, r.display(), r.isError(), r.rawOutput());
    }

    /** The sandbox a command of this call runs in, or null (full-access, or no sandbox here). */
    private Confinement confinement(Mode mode, Workspace ws) {
        Optional<SandboxPolicy> policy = SandboxPolicy.forMode(mode, ws.roots());
        if (policy.isEmpty()) return null;
        return sandboxes.sandbox().map(s -> new Confinement(s, policy.get())).orElse(null);
    }

    /** Once per session, on its first command: how commands are confined, logged; or, without a sandbox, a notice. */
    private void tellSandboxStatus(SessionRuntime rt, Mode mode, Workspace ws) {
        if (!rt.claimSandboxStatus()) return;
        if (!sandboxes.available()) {
            rt.notice(sandboxes.notice());
            return;
        }
        SandboxPolicy policy = SandboxPolicy.forMode(Mode.WORKSPACE_WRITE, ws.roots()).orElseThrow();
        log.info("session {}: commands run in {} except in full-access mode; in workspace-write {}; in read-only and plan {}",
                rt.session().id(), sandboxes.sandbox().orElseThrow().kind(), policy.describe(),
                SandboxPolicy.forMode(Mode.READ_ONLY, ws.roots()).orElseThrow().describe());
    }

    /** Asks over ACP with the four standard options; returns the chosen option id, or "reject_once" on anything else. */
    private String askPermission(SessionRuntime rt, SessionUpdate.ToolCall started, PermissionRequest request, Decision decision,
                                 Cancellation cancel) throws CancelledException {
        PermissionMemory memory = rt.permissions();
        boolean canRemember = decision.rememberable() && memory.canRemember(request);
        ObjectNode params = Json.object();
        ObjectNode toolCall = (ObjectNode) Json.MAPPER.valueToTree(started);
        toolCall.remove("sessionUpdate");
        params.set("toolCall", toolCall);
        ArrayNode options = params.putArray("options");
        options.addObject().put("optionId", "allow_once").put("name", "Allow once").put("kind", "allow_once");
        if (canRemember) options.addObject().put("optionId", "allow_always").put("name", "Always allow " + memory.describeScope(request)).put("kind", "allow_always");
        options.addObject().put("optionId", "reject_once").put("name", "Reject").put("kind", "reject_once");
        if (canRemember) options.addObject().put("optionId", "reject_always").put("name", "Always reject " + memory.describeScope(request)).put("kind", "reject_always");
        JsonNode answer;
        try {
            answer = rt.client().call("session/request_permission", params, cancel);
        } catch (CancelledException e) {
            throw e;
        } catch (Exception e) {
            if (cancel.isCancelled()) throw new CancelledException();
            log.info("permission request for {} failed ({}); treated as rejected", started.toolCallId(), e.getClass().getSimpleName());
            return "reject_once";
        }
        JsonNode outcome = answer.path("outcome");
        if (!"selected".equals(outcome.path("outcome").asText())) {
            if (cancel.isCancelled()) throw new CancelledException();
            return "reject_once";
        }
        String option = outcome.path("optionId").asText();
        if (!List.of("allow_once", "allow_always", "reject_once", "reject_always").contains(option)) return "reject_once";
        if (option.endsWith("_always") && canRemember && memory.record(request, option)) rt.saveState();
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

    private ToolExecutionResultMessage refuse(SessionRuntime rt, String id, ToolExecutionRequest call, ToolKind kind, String title,
                                              JsonNode args, String message) {
        show(rt, new SessionUpdate.ToolCall(id, title, kind, ToolCallStatus.PENDING, null, null, args, null));
        return finish(rt, id, call, ToolCallStatus.FAILED, List.of(ToolCallContent.text(message)), null, "Error: " + message);
    }

    /** The last update of a call and its result for the model, with the session's secrets masked in both. */
    private ToolExecutionResultMessage finish(SessionRuntime rt, String id, ToolExecutionRequest call, ToolCallStatus status,
                                              List<ToolCallContent> display, JsonNode rawOutput, String forModel) {
        ToolOutputMask mask = new ToolOutputMask(rt.children().credentials());
        update(rt, new SessionUpdate.ToolCallUpdate(id, null, null, status, mask.content(display), null, null, mask.json(rawOutput)));
        return ToolExecutionResultMessage.from(call.id() == null ? id : call.id(), call.name(), mask.text(forModel));
    }

    private void show(SessionRuntime rt, SessionUpdate.ToolCall started) {
        rt.client().update(started);
        rt.journal().append(RecordTypes.TOOL_CALL, record(started));
    }

    private void update(SessionRuntime rt, SessionUpdate.ToolCallUpdate u) {
        rt.client().update(u);
        if (u.status() == ToolCallStatus.COMPLETED || u.status() == ToolCallStatus.FAILED) {
            rt.journal().append(RecordTypes.TOOL_CALL_UPDATE, record(u));
        }
    }

    private void showPlan(SessionRuntime rt, List<PlanEntry> entries) {
        rt.client().update(new SessionUpdate.Plan(entries));
        ObjectNode rec = Json.object();
        rec.set("entries", Json.MAPPER.valueToTree(entries));
        rt.journal().append(RecordTypes.PLAN, rec);
    }

    private static ObjectNode record(SessionUpdate u) {
        ObjectNode rec = Json.MAPPER.valueToTree(u);
        rec.remove("sessionUpdate");
        return rec;
    }

    private static JsonNode parseArgs(String raw) {
        if (raw == null || raw.isBlank()) return Json.object();
        try {
            JsonNode n = Json.MAPPER.readTree(raw);
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
    private final class ThrottledProgress implements cn.agentao.agent.tools.ToolProgress {
        private final SessionRuntime rt;
        private final String id;
        private long lastSent;
        private volatile List<ToolCallContent> latest;

        private final ToolOutputMask mask;

        ThrottledProgress(SessionRuntime rt, String id) {
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
            update(rt, new SessionUpdate.ToolCallUpdate(id, null, null, ToolCallStatus.IN_PROGRESS, latest, null, null, null));
        }

        List<ToolCallContent> last(List<ToolCallContent> fallback) {
            List<ToolCallContent> l = latest;
            return l == null ? fallback : l;
        }
    }

}
