package cn.agentao.agent.core;

import cn.agentao.agent.model.FinishKind;
import cn.agentao.agent.model.ModelChoice;
import cn.agentao.agent.model.ModelClient;
import cn.agentao.agent.model.ModelException;
import cn.agentao.agent.model.ModelRequest;
import cn.agentao.agent.model.ModelResponse;
import cn.agentao.agent.model.ModelStreamListener;
import cn.agentao.agent.protocol.ContentBlock;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.protocol.StopReason;
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

/**
 * One prompt turn: the user's message goes to the model, its text and reasoning stream to the client, its
 * tool calls run and feed back, until the model stops, a limit is hit, or the user cancels. A failing model is
 * explained to the user and ends the turn normally.
 */
final class TurnRunner {
    private static final Logger log = LoggerFactory.getLogger(TurnRunner.class);

    private final Engine engine;
    private final ToolCallRunner tools;
    private final int maxModelCalls;

    TurnRunner(Engine engine, ToolCallRunner tools, int maxModelCalls) {
        this.engine = engine;
        this.tools = tools;
        this.maxModelCalls = maxModelCalls;
    }

    StopReason run(SessionRuntime rt, List<ContentBlock> prompt, Cancellation cancel) {
        SessionClient client = rt.client();
        rt.conversation().add(userMessage(prompt));
        engine.recordUserPrompt(rt, prompt);
        ModelChoice choice = engine.currentChoice(rt.session());
        ModelClient model = engine.modelClient(rt.session(), choice);
        List<ToolSpecification> specs = tools.specifications(rt);
        String system = ProjectInstructions.systemPrompt(rt.session().cwd(), rt.session().additionalDirectories());

        for (int call = 0; call < maxModelCalls; call++) {
            if (cancel.isCancelled()) return StopReason.CANCELLED;
            engine.compactIfNeeded(rt, choice, cancel);
            List<ChatMessage> messages = new ArrayList<>();
            messages.add(SystemMessage.from(system));
            messages.addAll(rt.conversation().snapshot());
            ModelResponse response;
            StreamForwarder forwarder = new StreamForwarder(client);
            long started = System.nanoTime();
            log.debug("session {}: model call {} to {} ({} messages, {} tools)", rt.session().id(), call + 1, choice.value(),
                    messages.size(), specs.size());
            try {
                response = model.stream(new ModelRequest(messages, specs, engine.reasoningEffort(rt.session())), forwarder, cancel);
                log.debug("session {}: model call {} answered in {} ms: finish {}, {} tool calls, usage {}", rt.session().id(),
                        call + 1, (System.nanoTime() - started) / 1_000_000, response.finish(),
                        response.message().hasToolExecutionRequests() ? response.message().toolExecutionRequests().size() : 0,
                        response.usage());
            } catch (ModelException e) {
                forwarder.flushRecord(rt, engine);
                if (e.kind() == ModelException.Kind.CANCELLED || cancel.isCancelled()) return StopReason.CANCELLED;
                log.warn("model call failed: {} (HTTP {})", e.kind(), e.httpStatus());
                client.modelFailed(e.userMessage());
                String text = (forwarder.wroteText() ? "\n\n" : "") + "Error: " + e.userMessage();
                client.update(SessionUpdate.AgentMessageChunk.text(text));
                engine.recordAgentText(rt, text);
                return StopReason.END_TURN;
            }
            AiMessage ai = wellFormed(response.message());
            rt.conversation().add(ai);
            engine.recordModelMessage(rt, ai);
            engine.reportUsage(rt, choice, response.usage());
            if (cancel.isCancelled()) {
                closeToolCalls(rt, ai, "cancelled by the user");
                return StopReason.CANCELLED;
            }
            if (!ai.hasToolExecutionRequests()) {
                return switch (response.finish()) {
                    case LENGTH -> StopReason.MAX_TOKENS;
                    case CONTENT_FILTER -> StopReason.REFUSAL;
                    default -> StopReason.END_TURN;
                };
            }
            List<ToolExecutionRequest> calls = ai.toolExecutionRequests();
            for (int i = 0; i < calls.size(); i++) {
                if (cancel.isCancelled()) {
                    closeToolCalls(rt, calls.subList(i, calls.size()), "cancelled by the user");
                    return StopReason.CANCELLED;
                }
                ToolExecutionResultMessage result = tools.run(rt, calls.get(i), cancel);
                rt.conversation().add(result);
                engine.recordModelMessage(rt, result);
            }
            if (cancel.isCancelled()) return StopReason.CANCELLED;
            if (response.finish() == FinishKind.LENGTH && calls.isEmpty()) return StopReason.MAX_TOKENS;
        }
        return StopReason.MAX_TURN_REQUESTS;
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

    /** Every tool call the model asked for gets a result, so the history stays valid for the next turn. */
    private void closeToolCalls(SessionRuntime rt, AiMessage ai, String why) {
        if (ai.hasToolExecutionRequests()) closeToolCalls(rt, ai.toolExecutionRequests(), why);
    }

    private void closeToolCalls(SessionRuntime rt, List<ToolExecutionRequest> calls, String why) {
        for (ToolExecutionRequest c : calls) {
            ToolExecutionResultMessage r = ToolExecutionResultMessage.from(c, "Not run: " + why + ".");
            rt.conversation().add(r);
            engine.recordModelMessage(rt, r);
        }
    }

    static UserMessage userMessage(List<ContentBlock> prompt) {
        List<Content> contents = new ArrayList<>();
        for (ContentBlock b : prompt) {
            switch (b) {
                case ContentBlock.Text t -> contents.add(TextContent.from(t.text()));
                case ContentBlock.Image i -> contents.add(ImageContent.from(i.data(), i.mimeType()));
                case ContentBlock.ResourceLink l -> contents.add(TextContent.from(
                        "[Referenced resource: " + l.name() + " <" + l.uri() + ">]"));
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
        private final SessionClient client;
        private final StringBuilder text = new StringBuilder();
        private final StringBuilder thought = new StringBuilder();

        StreamForwarder(SessionClient client) {
            this.client = client;
        }

        @Override
        public void onText(String delta) {
            if (delta == null || delta.isEmpty()) return;
            text.append(delta);
            client.update(SessionUpdate.AgentMessageChunk.text(delta));
        }

        @Override
        public void onReasoning(String delta) {
            if (delta == null || delta.isEmpty()) return;
            thought.append(delta);
            client.update(SessionUpdate.AgentThoughtChunk.text(delta));
        }

        boolean wroteText() { return text.length() > 0; }

        /** After a failed call: what did stream is kept in the session record. */
        void flushRecord(SessionRuntime rt, Engine engine) {
            if (thought.length() > 0) engine.recordThought(rt, thought.toString());
            if (text.length() > 0) engine.recordAgentText(rt, text.toString());
        }
    }
}
