package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.core.content.TurnResult;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.InertText;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code agent -p PROMPT}: one prompt, no one at the keyboard. Anything that would ask is denied (and the denial
 * is reported); the answer goes to stdout in the chosen {@link OutputFormat}; problems are one plain line on
 * stderr. Returns an {@link ExitCodes exit code}. Text output is made inert ({@link InertText}) whether stdout is a
 * terminal or a pipe (which may end in {@code less -R}); the JSON formats carry the text exactly, escaped by JSON's rules.
 */
public final class Headless implements LocalSession.View {
    /** What the command line asked for. */
    public record Request(String prompt, OutputFormat format, String mode, String model, String resume, Path cwd) {}

    /**
     * One line naming what to set for the chosen provider, e.g. DEEPSEEK_API_KEY for LLM_PROVIDER=DEEPSEEK (the long
     * explanation is in --help and README).
     */
    public static String noProvider(SessionService sessions, Path cwd) {
        java.util.List<String> missing = sessions.missingVariables(cwd);
        String set = missing.isEmpty() ? "OPENAI_API_KEY" : String.join(" and ", missing);
        return "no model provider is configured: set " + set + " in the environment or ~/.config/agent/.env, or run "
                + "`agent login` (another provider: LLM_PROVIDER=NAME with NAME_API_KEY, NAME_BASE_URL, NAME_MODEL).";
    }

    /** The turn ended in its tools, not with an answer. */
    static final String TOOL_LOOP = "the turn stopped without a final answer: the model kept calling tools up to the "
            + "limit of model calls per prompt (AGENT_MAX_MODEL_CALLS)";

    /** The result's stop reason when the turn failed (not one of ACP's, which answers a failed prompt with an error). */
    static final String ERROR_STOP = "error";

    private final OutputFormat format;
    private final PrintStream out;
    private final PrintStream err;
    private final StringBuilder text = new StringBuilder();
    private final ArrayNode denied = Json.mapper().createArrayNode();
    private volatile String sessionId;
    private volatile String failure;
    /** A chunk that may be a model failure's reason, held until the turn's result tells (see {@link #event}). */
    private String heldError;
    private volatile AgentEvent.UsageChanged usage;
    private final InertText.Stream answer = new InertText.Stream();

    private Headless(OutputFormat format, PrintStream out, PrintStream err) {
        this.format = format;
        this.out = out;
        this.err = err;
    }

    /** Runs {@code request}; {@code interrupted} is set by the caller's SIGINT handler through the returned hook. */
    public static int run(SessionService sessions, Request request, PrintStream out, PrintStream err,
                          java.util.function.Consumer<Runnable> onInterrupt) {
        Headless view = new Headless(request.format(), out, err);
        if (!sessions.configured(request.cwd())) return view.failBeforeTurn(noProvider(sessions, request.cwd()), ExitCodes.FAILED);
        LocalSession session;
        try {
            session = LocalSession.open(sessions, request.cwd(), request.resume(), false, view);
        } catch (LocalSession.OpenException e) {
            return view.failBeforeTurn(e.getMessage(), ExitCodes.FAILED);
        }
        try (session) {
            try {
                if (request.mode() != null) session.setMode(request.mode());
                if (request.model() != null) session.setModel(request.model());
            } catch (CoreException e) {
                return view.failBeforeTurn(e.getMessage(), ExitCodes.USAGE);
            }
            java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
            onInterrupt.accept(() -> {
                interrupted.set(true);
                session.cancel();
            });
            TurnResult result;
            try {
                result = session.prompt(List.of(ContentBlock.text(request.prompt())));
            } catch (RuntimeException e) { // a fault of the agent itself stopped the turn: one line, no stack trace
                view.failure = "the turn stopped on an internal error: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
                view.finish(null);
                return ExitCodes.FAILED;
            }
            view.failure = result.error();
            if (result.stopReason() == StopReason.MAX_TURN_REQUESTS) view.failure = TOOL_LOOP;
            view.finish(result.stopReason());
            if (interrupted.get() || result.stopReason() == StopReason.CANCELLED) return ExitCodes.INTERRUPTED;
            return view.failure != null ? ExitCodes.FAILED : ExitCodes.OK;
        }
    }

    /** No turn was run: the reason on stderr, and in json and stream-json the result object that says it. */
    private int failBeforeTurn(String reason, int exitCode) {
        failure = reason;
        finish(null);
        return exitCode;
    }

    /** {@code reason} null: the turn did not run to a stop reason of its own (it could not start, or broke). */
    private void finish(StopReason reason) {
        String held = heldError;
        heldError = null;
        boolean isTheFailure = held != null && failure != null && held.strip().equals("Error: " + failure.strip());
        if (held != null && !isTheFailure) { // it was an answer after all
            text.append(held);
            if (format == OutputFormat.TEXT) out.print(answer.next(held));
        }
        answer.end();
        switch (format) {
            case TEXT -> {
                if (!text.isEmpty() && text.charAt(text.length() - 1) != '\n') out.println();
                out.flush();
            }
            case JSON, STREAM_JSON -> out.println(json(result(reason)));
        }
        if (failure != null) err.println("agent: " + InertText.forTerminal(failure));
        out.flush();
    }

    private ObjectNode result(StopReason reason) {
        ObjectNode r = Json.object();
        if (format == OutputFormat.STREAM_JSON) r.put("type", "result");
        // a failed turn is not a complete answer: "error", unless its own stop reason says more (max_turn_requests)
        boolean failed = failure != null && (reason == null || reason == StopReason.END_TURN);
        r.put("sessionId", sessionId).put("stopReason", failed ? ERROR_STOP : reason.wire()).put("text", text.toString());
        AgentEvent.UsageChanged u = usage;
        ObjectNode usageNode = r.putObject("usage");
        if (u != null) usageNode.put("used", u.used()).put("size", u.size());
        if (u != null && u.cost() != null) usageNode.putObject("cost").put("amount", u.cost().amount()).put("currency", u.cost().currency());
        if (!denied.isEmpty()) r.set("denied", denied);
        if (failure != null) r.put("error", failure);
        return r;
    }

    @Override
    public synchronized void event(AgentEvent event) {
        if (event instanceof AgentEvent.UsageChanged u) usage = u;
        String delta = event instanceof AgentEvent.MessageChunk c && c.content() instanceof ContentBlock.Text t ? t.text() : null;
        if (format != OutputFormat.STREAM_JSON) {
            if (heldError != null) { // more followed: the held text was part of the answer
                String h = heldError;
                heldError = null;
                text.append(h);
                if (format == OutputFormat.TEXT) out.print(answer.next(h));
            }
            // a model failure streams its reason as one "Error: …" chunk and ends the turn: held until the result says
            // whether it was the failure (then stderr says it, once) or text of the answer
            if (delta != null && (delta.startsWith("Error: ") || delta.startsWith("\n\nError: "))) {
                heldError = delta;
                return;
            }
        }
        if (delta != null) text.append(delta);
        switch (format) {
            case TEXT -> {
                if (delta != null) {
                    out.print(answer.next(delta));
                    out.flush();
                } else if (event instanceof AgentEvent.Notice n) {
                    err.println("agent: " + InertText.forTerminal(n.text()));
                }
            }
            case STREAM_JSON -> {
                ObjectNode update = StreamJson.update(event);
                if (update != null) {
                    out.println(json(Json.object().put("sessionId", sessionId).set("update", update)));
                    out.flush();
                }
            }
            case JSON -> { }
        }
    }

    /** Nobody can answer: every question is answered "reject" and reported. */
    @Override
    public synchronized String choose(AgentEvent.ToolCallStarted call, List<ApprovalOption> options, Cancellation cancel) {
        String title = call == null || call.title() == null ? "a decision" : call.title();
        ObjectNode d = denied.addObject().put("toolCallId", call == null ? null : call.toolCallId()).put("title", InertText.forApproval(title))
                .put("reason", "needs approval, and no one can answer in -p mode");
        switch (format) {
            case TEXT -> err.println("agent: denied: " + InertText.forApproval(title) + " (it needs approval; allow it with --mode or a rule in config)");
            case STREAM_JSON -> {
                ObjectNode line = d.deepCopy().put("type", "permission_denied");
                out.println(json(line));
                out.flush();
            }
            case JSON -> { }
        }
        return options.stream().filter(o -> o.kind() == ApprovalOption.Kind.REJECT_ONCE).map(ApprovalOption::optionId)
                .findFirst().orElse(null);
    }

    @Override
    public void opened(String id) { sessionId = id; }

    /** One line of JSON: controls escaped by JSON's rules, DEL and the C1 controls too (see {@link InertText#JSON_ESCAPES}). */
    private static String json(com.fasterxml.jackson.databind.JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e); // a tree always serialises
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectWriter JSON = Json.mapper().writer().with(InertText.JSON_ESCAPES);

}
