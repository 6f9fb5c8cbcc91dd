package cn.agentao.agent.tools.user;

import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code ask_user}: asks the user a free-text question and waits for the answer; {@value #UNAVAILABLE} when
 * nobody can be asked (the client cannot, the user cancelled, the request failed).
 */
public final class AskUserTool implements Tool {
    public static final String NAME = "ask_user";
    public static final String UNAVAILABLE = "(user unavailable)";

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "question":{"type":"string","description":"The question, self-contained."},
              "options":{"type":"array","items":{"type":"string"},"description":"Suggested answers (optional); the user may answer freely."}
            },"required":["question"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Ask the user a question and wait for the answer, when you cannot proceed without their decision or "
                + "information. Returns the answer text, or " + UNAVAILABLE + " when the user cannot be asked.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.OTHER; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        String question = ToolArgs.string(args, "question").strip();
        if (question.isEmpty()) throw new ToolException(NAME + ": 'question' must not be empty");
        List<String> options = new ArrayList<>();
        if (args.hasNonNull("options")) {
            for (JsonNode o : args.get("options")) {
                if (!o.isTextual()) throw new ToolException(NAME + ": 'options' must be strings");
                if (!o.asText().isBlank()) options.add(o.asText().strip());
            }
        }
        return new Invocation(ctx, question, List.copyOf(options));
    }

    private record Invocation(ToolContext ctx, String question, List<String> options) implements ToolInvocation {
        @Override
        public String title() {
            return "Ask: " + (question.length() > 80 ? question.substring(0, 79) + "…" : question);
        }

        @Override
        public List<ToolCallLocation> locations() { return List.of(); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.Generic(NAME, true, false); }

        @Override
        public ToolResult run(ToolProgress progress) throws InterruptedException {
            Optional<String> answer = ctx.cancellation().isCancelled() ? Optional.empty()
                    : ctx.questions().ask(question, options);
            String text = answer.orElse(UNAVAILABLE);
            return new ToolResult(text, List.of(ToolCallContent.text(question + "\n→ " + text)), false,
                    Json.object().put("answered", answer.isPresent()));
        }
    }
}
