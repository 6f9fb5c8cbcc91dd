package cn.agentao.agent.connect.a2a;

import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.util.CancelledException;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code a2a__NAME}: the model's message to a remote A2A agent. The remote's progress and answer stream into the
 * tool call; its {@code contextId} is kept per session so follow-up calls continue the same conversation; a
 * remote {@code input-required} comes back as the result (the next call answers it); cancelling the turn
 * cancels the remote task. The card is read on first use and kept.
 */
public final class RemoteAgentTool implements Tool {
    private static final Duration CARD_TIMEOUT = Duration.ofSeconds(5);
    /** The most answer text shown while it streams (the model gets all of it). */
    private static final int MAX_PROGRESS_CHARS = 64 * 1024;

    /** Where a session's conversation with the remote agent stands. */
    private record Conversation(String contextId, String pendingTaskId) {}

    private final A2aAgentConfig config;
    private final A2aClient client;
    private final Map<String, Conversation> conversations = new ConcurrentHashMap<>();
    private volatile JsonNode card;
    private final java.util.concurrent.atomic.AtomicBoolean cardRequested = new java.util.concurrent.atomic.AtomicBoolean();

    /** {@code guard} judges the addresses the agent's card sends us to, as for {@code web_fetch}. */
    public RemoteAgentTool(A2aAgentConfig config, Map<String, String> env, NetworkGuard guard) {
        this.config = config;
        String token = config.tokenEnv() == null ? null : env.get(config.tokenEnv());
        this.client = new A2aClient(config.url(), config.allowedEndpoints(), token == null || token.isBlank() ? null : token, guard);
    }

    @Override public String name() { return config.toolName(); }

    @Override
    public String description() {
        StringBuilder sb = new StringBuilder("Send a message to the remote agent \"" + config.name() + "\" (A2A, " + config.url()
                + ") and get its answer. Follow-up calls continue the same conversation; when it asks a question, "
                + "call again with the answer.");
        JsonNode c = card;
        if (c == null) readCardInBackground();
        if (c != null) {
            sb.append(" It describes itself: ").append(c.path("description").asText(""));
            for (JsonNode s : c.path("skills")) {
                sb.append("\n- ").append(s.path("name").asText(s.path("id").asText())).append(": ").append(s.path("description").asText(""));
            }
        }
        return sb.toString();
    }

    @Override
    public ObjectNode inputSchema() {
        ObjectNode schema = Json.object().put("type", "object");
        schema.putObject("properties").putObject("message").put("type", "string")
                .put("description", "What to tell or ask the remote agent, in plain words.");
        schema.putArray("required").add("message");
        schema.put("additionalProperties", false);
        return schema;
    }

    @Override public ToolKind kind() { return ToolKind.FETCH; }

    /** First asked for the description (the first turn): read the card meanwhile, so later turns describe the agent. */
    private void readCardInBackground() {
        if (!cardRequested.compareAndSet(false, true)) return;
        Thread.ofVirtual().name("a2a-card-" + config.name()).start(() -> {
            try {
                card();
            } catch (A2aClientException e) {
                cardRequested.set(false); // try again later; a call will say why it is unavailable
            }
        });
    }

    /** The card, read once; fills in the description for later turns. */
    JsonNode card() throws A2aClientException {
        JsonNode c = card;
        if (c == null) {
            c = client.card(CARD_TIMEOUT);
            card = c;
        }
        return c;
    }

    @Override
    public ToolInvocation prepare(JsonNode args, ToolContext ctx) throws ToolException {
        if (!args.path("message").isTextual() || args.path("message").asText().isBlank()) {
            throw new ToolException(name() + " needs \"message\": the text to send to the remote agent");
        }
        String text = args.path("message").asText();
        PermissionRequest permission = new PermissionRequest.Generic(name(), false, false);
        return new ToolInvocation() {
            @Override public String title() {
                String t = text.strip().replaceAll("\\s+", " ");
                return "Ask " + config.name() + ": " + (t.length() > 60 ? t.substring(0, 59) + "…" : t);
            }
            @Override public List<ToolCallLocation> locations() { return List.of(); }
            @Override public PermissionRequest permission() { return permission; }
            @Override public ToolResult run(ToolProgress progress) { return call(text, ctx, progress); }
        };
    }

    private ToolResult call(String text, ToolContext ctx, ToolProgress progress) {
        A2aClient.Endpoint endpoint;
        try {
            endpoint = client.endpoint(card());
        } catch (A2aClientException e) {
            return ToolResult.error("The remote agent \"" + config.name() + "\" is unavailable: " + e.getMessage());
        }
        Conversation before = conversations.get(ctx.sessionId());
        ObjectNode message = Json.object().put("kind", "message").put("messageId", UUID.randomUUID().toString()).put("role", "user");
        message.putArray("parts").addObject().put("kind", "text").put("text", text);
        if (before != null && before.contextId() != null) message.put("contextId", before.contextId());
        if (before != null && before.pendingTaskId() != null) message.put("taskId", before.pendingTaskId());

        RemoteTaskView view = new RemoteTaskView();
        try (var onCancel = ctx.cancellation().onCancel(() -> {
            String id = view.taskId();
            if (id != null) Thread.ofVirtual().start(() -> client.cancel(endpoint, id));
        })) {
            client.stream(endpoint, message, event -> {
                if (view.accept(event)) progress.show(List.of(ToolCallContent.text(view.shown(MAX_PROGRESS_CHARS))));
            }, ctx.cancellation());
        } catch (CancelledException e) {
            return ToolResult.error("Cancelled; the remote task was cancelled too.");
        } catch (A2aClientException e) {
            return ToolResult.error("The remote agent \"" + config.name() + "\" failed: " + e.getMessage());
        }
        String state = view.state();
        String contextId = view.contextId() != null ? view.contextId() : before == null ? null : before.contextId();
        boolean asks = "input-required".equals(state) || "auth-required".equals(state);
        conversations.put(ctx.sessionId(), new Conversation(contextId, asks ? view.taskId() : null));
        String answer = view.answer();
        String status = view.statusText();
        return switch (state == null ? "" : state) {
            case "completed" -> ToolResult.success(answer.isEmpty() ? (status.isEmpty() ? "(the remote agent gave no answer)" : status) : answer);
            case "input-required", "auth-required" -> ToolResult.success((answer.isEmpty() ? "" : answer + "\n\n")
                    + "The remote agent needs an answer before it goes on: " + status
                    + "\nCall " + name() + " again with the answer.");
            case "canceled" -> ToolResult.error("The remote agent cancelled the task." + (status.isEmpty() ? "" : " " + status));
            case "failed", "rejected" -> ToolResult.error("The remote agent " + ("failed".equals(state) ? "failed" : "refused")
                    + (status.isEmpty() ? "." : ": " + status) + (answer.isEmpty() ? "" : "\n" + answer));
            default -> ToolResult.error("The remote agent \"" + config.name() + "\" ended the stream before finishing (state: "
                    + (state == null ? "none" : state) + ")." + (answer.isEmpty() ? "" : "\n" + answer));
        };
    }
}
