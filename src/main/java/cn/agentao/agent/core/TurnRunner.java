package cn.agentao.agent.core;

import cn.agentao.agent.model.FinishKind;
import cn.agentao.agent.model.ModelException;
import cn.agentao.agent.model.ModelRequest;
import cn.agentao.agent.model.ModelResponse;
import cn.agentao.agent.model.ModelStreamListener;
import cn.agentao.agent.model.TokenCount;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.hook.HookOutcome;
import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.core.tool.Subagents;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.core.tool.ToolSources;
import cn.agentao.agent.util.Cancellation;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One prompt turn: the user's message goes to the model, its text and reasoning stream to the client, its
 * tool calls run and feed back, until the model stops, a limit is hit, or the user cancels. A failing model is
 * explained to the user and ends the turn; an answer that failed part way (its stream cut, cleanly or not) is kept as
 * far as it came, marked as cut, and the turn's result says so ({@link cn.agentao.agent.core.content.TurnResult#answerCut}).
 */
final class TurnRunner {
    private static final Logger log = LoggerFactory.getLogger(TurnRunner.class);

    private final ModelSettings settings;
    private final Compaction compaction;
    private final ToolCallRunner tools;
    private final Function<Session, List<ToolSource>> sources;
    private final int maxModelCalls;

    TurnRunner(ModelSettings settings, Compaction compaction, ToolCallRunner tools,
               Function<Session, List<ToolSource>> sources, int maxModelCalls) {
        this.settings = settings;
        this.compaction = compaction;
        this.tools = tools;
        this.sources = sources;
        this.maxModelCalls = maxModelCalls;
    }

    StopReason run(Session rt, List<ContentBlock> prompt, Cancellation cancel) {
        List<String> hookContext = new ArrayList<>();
        String source = rt.claimSessionStart();
        if (source != null) hookContext.addAll(SessionHooks.sessionStart(rt, source, cancel).context());
        HookOutcome submitted = SessionHooks.userPromptSubmit(rt, prompt, cancel);
        if (cancel.isCancelled()) return StopReason.CANCELLED;
        if (submitted.denied()) { // the prompt never reaches the model (nor its history); the user is told why
            String text = "Prompt blocked by a hook: " + submitted.reason();
            rt.emit(AgentEvent.MessageChunk.text(text));
            SessionRecords.agentText(rt, text);
            return StopReason.END_TURN;
        }
        hookContext.addAll(submitted.context());
        rt.conversation().add(withContext(userMessage(prompt), hookContext));
        TurnModel turn;
        try {
            turn = settings.forTurn(rt);
            turn.client().prepare(); // its HTTP client's set-up overlaps the rest of this start (the first turn's)
        } finally {
            SessionRecords.userPrompt(rt, prompt);
        }
        boolean stopHookActive = false;
        String system = null; // composed with the first call's tools, then the same for the whole turn

        int limit = rt.role() == null ? maxModelCalls : rt.role().maxTurns();
        for (int call = 0; call < limit; call++) {
            if (cancel.isCancelled()) return StopReason.CANCELLED;
            compaction.compactIfNeeded(rt, turn, cancel);
            List<ToolSource> available = sources.apply(rt);
            List<ToolSpecification> specs = ToolSources.specifications(available);
            if (system == null) system = SystemPrompt.forTurn(rt, specs.stream().map(ToolSpecification::name).toList());
            List<ChatMessage> messages = new ArrayList<>();
            messages.add(SystemMessage.from(system));
            messages.addAll(rt.conversation().snapshot());
            ModelResponse response;
            StreamForwarder forwarder = new StreamForwarder(rt);
            long started = System.nanoTime();
            log.debug("session {}: model call {} to {} ({} messages, {} tools)", rt.id(), call + 1, turn.choice().value(),
                    messages.size(), specs.size());
            try {
                response = turn.client().stream(new ModelRequest(messages, specs, turn.reasoningEffort()), forwarder, cancel);
                log.debug("session {}: model call {} answered in {} ms: finish {}, {} tool calls, usage {}", rt.id(),
                        call + 1, (System.nanoTime() - started) / 1_000_000, response.finish(),
                        response.message().hasToolExecutionRequests() ? response.message().toolExecutionRequests().size() : 0,
                        response.usage());
            } catch (ModelException e) {
                forwarder.flushRecord(rt);
                if (e.kind() == ModelException.Kind.CANCELLED || cancel.isCancelled()) return StopReason.CANCELLED;
                log.warn("model call failed: {} (HTTP {})", e.kind(), e.httpStatus());
                // part of the answer was shown: it stays (streamed, and saved above), marked as cut by this notice
                boolean cut = forwarder.wroteOutput();
                String reason = cut ? "The answer was cut off. " + e.userMessage() + " What arrived above is incomplete."
                        : e.userMessage();
                rt.turnFailed(reason, cut);
                String text = (forwarder.wroteText() ? "\n\n" : "") + "Error: " + reason;
                rt.emit(AgentEvent.MessageChunk.text(text));
                SessionRecords.agentText(rt, text);
                return StopReason.END_TURN;
            }
            AiMessage ai = wellFormed(response.message());
            rt.conversation().add(ai);
            SessionRecords.modelMessage(rt, ai);
            reportUsage(rt, turn, response.usage());
            if (cancel.isCancelled()) {
                closeToolCalls(rt, ai, "cancelled by the user");
                return StopReason.CANCELLED;
            }
            if (!ai.hasToolExecutionRequests()) {
                StopReason reason = switch (response.finish()) {
                    case LENGTH -> StopReason.MAX_TOKENS;
                    case CONTENT_FILTER -> StopReason.REFUSAL;
                    default -> StopReason.END_TURN;
                };
                if (reason != StopReason.END_TURN) return reason;
                HookOutcome stop = SessionHooks.stop(rt, stopHookActive, cancel);
                if (cancel.isCancelled()) return StopReason.CANCELLED;
                if (!stop.denied()) return reason;
                // a Stop hook blocked the stop: its reason is the model's next instruction (bounded by maxModelCalls)
                stopHookActive = true;
                UserMessage more = UserMessage.from("A Stop hook asks you to continue: " + stop.reason());
                rt.conversation().add(more);
                SessionRecords.modelMessage(rt, more);
                continue;
            }
            List<ToolExecutionRequest> calls = ai.toolExecutionRequests();
            List<Content> images = new ArrayList<>();
            for (int i = 0; i < calls.size(); ) {
                if (cancel.isCancelled()) {
                    closeToolCalls(rt, calls.subList(i, calls.size()), "cancelled by the user");
                    return StopReason.CANCELLED;
                }
                int end = i + 1; // consecutive subagent calls run at once; any other call runs alone, in its order
                while (startsChild(available, calls.get(i)) && end < calls.size() && startsChild(available, calls.get(end))) end++;
                for (ToolExecutionResultMessage r : runAll(rt, available, calls.subList(i, end), cancel)) {
                    ToolExecutionResultMessage result = withoutImages(r, images);
                    rt.conversation().add(result);
                    SessionRecords.modelMessage(rt, result);
                }
                i = end;
            }
            if (!images.isEmpty()) { // after every result: a provider wants them right after the model's calls
                UserMessage seen = UserMessage.from(images);
                rt.conversation().add(seen);
                SessionRecords.modelMessage(rt, seen);
            }
            if (cancel.isCancelled()) return StopReason.CANCELLED;
            if (response.finish() == FinishKind.LENGTH && calls.isEmpty()) return StopReason.MAX_TOKENS;
        }
        return StopReason.MAX_TURN_REQUESTS;
    }

    private static boolean startsChild(List<ToolSource> available, ToolExecutionRequest call) {
        return call.name() != null && ToolSources.find(available, call.name()).orElse(null) instanceof Subagents.Starter;
    }

    /**
     * Runs {@code calls}: one on this thread; several (subagents of one answer) each on a virtual thread of its own, at
     * once, under the same cancellation. The results come in the calls' order.
     */
    private List<ToolExecutionResultMessage> runAll(Session rt, List<ToolSource> available, List<ToolExecutionRequest> calls,
                                                    Cancellation cancel) {
        if (calls.size() == 1) return List.of(tools.run(rt, available, calls.getFirst(), cancel));
        List<java.util.concurrent.Future<ToolExecutionResultMessage>> running = new ArrayList<>();
        try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (ToolExecutionRequest call : calls) running.add(threads.submit(() -> tools.run(rt, available, call, cancel)));
        } // waits for every call: each ends (a cancelled one too) with its result
        List<ToolExecutionResultMessage> results = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            ToolExecutionResultMessage r;
            try {
                r = running.get(i).resultNow();
            } catch (IllegalStateException e) { // the runner never throws; should it, the model still gets a result
                log.warn("session {}: tool call {} failed", rt.id(), calls.get(i).id(), e);
                r = ToolExecutionResultMessage.from(calls.get(i), "Not run: it failed unexpectedly.");
            }
            results.add(r);
        }
        return results;
    }

    private void reportUsage(Session rt, TurnModel turn, TokenCount usage) {
        long used = usage != null && usage.total() > 0 ? usage.total() : rt.conversation().estimateTokens();
        if (usage != null) {
            EngineRecord.Usage rec = UsageTotals.record(turn.choice().value(), usage, turn.price());
            Session payer = rt.role() == null ? rt : rt.role().parent(); // a subagent's calls count as its session's
            SessionRecords.usage(payer, rec);
            synchronized (payer) {
                payer.usage(payer.usage().plus(rec));
            }
            if (payer != rt) rt.usage(rt.usage().plus(rec));
        }
        UsageTotals totals = rt.usage();
        AgentEvent.Cost cost = totals.currency() == null ? null : new AgentEvent.Cost(totals.cost(), totals.currency());
        rt.emit(new AgentEvent.UsageChanged(used, turn.contextWindow(), cost));
    }

    /**
     * A model can emit a tool call without a name or id; kept as is, it would make every later request to the
     * provider invalid. Such calls get a placeholder name (which no tool has, so the model is told) and an id.
     */
    static AiMessage wellFormed(AiMessage ai) {
        if (!ai.hasToolExecutionRequests()) return ai;
        boolean broken = ai.toolExecutionRequests().stream().anyMatch(r -> blank(r.name()) || blank(r.id()));
        if (!broken) return ai;
        List<ToolExecutionRequest> fixed = new ArrayList<>();
        for (ToolExecutionRequest r : ai.toolExecutionRequests()) {
            fixed.add(ToolExecutionRequest.builder()
                    .id(blank(r.id()) ? "call_" + java.util.UUID.randomUUID() : r.id())
                    .name(blank(r.name()) ? "unnamed_tool" : r.name())
                    .arguments(r.arguments() == null ? "{}" : r.arguments())
                    .build());
        }
        return ai.toBuilder().toolExecutionRequests(fixed).build();
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    /**
     * A tool result's images go to {@code images}, for a user message after the results (OpenAI's chat API takes no
     * image in a tool message; as codex and gemini-cli do, every provider gets them the same way), with a line naming
     * the call they came from; the result keeps its text.
     */
    static ToolExecutionResultMessage withoutImages(ToolExecutionResultMessage result, List<Content> images) {
        if (result.hasSingleText() || result.contents().stream().noneMatch(ImageContent.class::isInstance)) return result;
        StringBuilder text = new StringBuilder();
        for (Content c : result.contents()) {
            if (c instanceof TextContent t) text.append(t.text());
        }
        images.add(TextContent.from("The image from the " + result.toolName() + " call " + result.id() + ":"));
        result.contents().stream().filter(ImageContent.class::isInstance).forEach(images::add);
        return ToolExecutionResultMessage.from(result.id(), result.toolName(), text.toString());
    }

    /** Every tool call the model asked for gets a result, so the history stays valid for the next turn. */
    private void closeToolCalls(Session rt, AiMessage ai, String why) {
        if (ai.hasToolExecutionRequests()) closeToolCalls(rt, ai.toolExecutionRequests(), why);
    }

    private void closeToolCalls(Session rt, List<ToolExecutionRequest> calls, String why) {
        for (ToolExecutionRequest c : calls) {
            ToolExecutionResultMessage r = ToolExecutionResultMessage.from(c, "Not run: " + why + ".");
            rt.conversation().add(r);
            SessionRecords.modelMessage(rt, r);
        }
    }

    /** The prompt's message with the text hooks added for the model (UserPromptSubmit, SessionStart), if any. */
    private static UserMessage withContext(UserMessage message, List<String> context) {
        if (context.isEmpty()) return message;
        List<Content> contents = new ArrayList<>(message.contents());
        for (String c : context) contents.add(TextContent.from("<hook_context>\n" + c + "\n</hook_context>"));
        return UserMessage.from(contents);
    }

    static UserMessage userMessage(List<ContentBlock> prompt) {
        List<Content> contents = new ArrayList<>();
        for (ContentBlock b : prompt) {
            switch (b) {
                case ContentBlock.Text t -> contents.add(TextContent.from(t.text()));
                case ContentBlock.Image i -> contents.add(ImageContent.from(i.data(), i.mimeType()));
                case ContentBlock.ResourceLink l -> contents.add(TextContent.from(
                        "[Referenced resource: " + l.name() + " <" + l.uri() + ">]"));
                case ContentBlock.Resource r when r.resource().path("blob").isTextual()
                        && r.resource().path("mimeType").asText().startsWith("image/") -> {
                    contents.add(TextContent.from("[Attached image: " + r.resource().path("uri").asText() + "]"));
                    contents.add(ImageContent.from(r.resource().path("blob").asText(), r.resource().path("mimeType").asText()));
                }
                case ContentBlock.Resource r -> {
                    String uri = r.resource().path("uri").asText();
                    String text = r.resource().has("text") ? r.resource().path("text").asText()
                            : "(binary content, " + r.resource().path("blob").asText().length() * 3 / 4 + " bytes)";
                    contents.add(TextContent.from("<resource uri=\"" + uri + "\">\n" + text + "\n</resource>"));
                }
                case ContentBlock.Audio a -> { /* refused by validation */ }
            }
        }
        if (contents.isEmpty()) contents.add(TextContent.from(""));
        return UserMessage.from(contents);
    }

    /** Streams model output to the client as it arrives; remembers the text for the session record. */
    static final class StreamForwarder implements ModelStreamListener {
        private final Session session;
        private final StringBuilder text = new StringBuilder();
        private final StringBuilder thought = new StringBuilder();

        StreamForwarder(Session session) {
            this.session = session;
        }

        @Override
        public void onText(String delta) {
            if (delta == null || delta.isEmpty()) return;
            text.append(delta);
            session.emit(AgentEvent.MessageChunk.text(delta));
        }

        @Override
        public void onReasoning(String delta) {
            if (delta == null || delta.isEmpty()) return;
            thought.append(delta);
            session.emit(AgentEvent.ThoughtChunk.text(delta));
        }

        boolean wroteText() { return text.length() > 0; }

        /** Whether any of the answer (text or reasoning) reached the user. */
        boolean wroteOutput() { return text.length() > 0 || thought.length() > 0; }

        /** After a failed call: what did stream is kept in the session record. */
        void flushRecord(Session rt) {
            if (thought.length() > 0) SessionRecords.thought(rt, thought.toString());
            if (text.length() > 0) SessionRecords.agentText(rt, text.toString());
        }
    }
}
