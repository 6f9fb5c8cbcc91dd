package cn.agentao.agent.door.a2a;

import cn.agentao.agent.jsonrpc.ErrorCodes;

import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The A2A methods over the engine, free of HTTP: a message starts a task (a turn of its context's session) or
 * answers the task's permission question; tasks are read, cancelled and given push-notification webhooks.
 */
final class A2aService {
    private static final Logger log = LoggerFactory.getLogger(A2aService.class);
    /** How long a new message waits for a cancelled task of its context to wind down before calling it busy. */
    private static final Duration BUSY_WAIT = Duration.ofSeconds(10);

    /** A task and what sets it going; a stream subscribes to the task before {@code start} runs. */
    record Started(A2aTask task, Runnable start) {}

    private final SessionService sessions;
    private final A2aContexts contexts;
    private final TaskStore tasks;
    private final PushNotifier push;
    private final Path cwd;
    private final Map<String, Session.Turn> running = new ConcurrentHashMap<>();

    A2aService(SessionService sessions, A2aContexts contexts, TaskStore tasks, PushNotifier push, Path cwd) {
        this.sessions = sessions;
        this.contexts = contexts;
        this.tasks = tasks;
        this.push = push;
        this.cwd = cwd;
        tasks.onCancelRequest(this::cancel);
    }

    // ---------------------------------------------------------------- message/send, message/stream

    /**
     * {@code caller} names the credential the request came with (see {@code A2aServer}): a new task is its, and a
     * message to an existing task is taken only from it.
     */
    Started send(JsonNode params, String caller) throws A2aException {
        JsonNode message = requireObject(params, "message");
        if (!"user".equals(message.path("role").asText())) throw A2aException.invalidParams("message.role must be \"user\"");
        if (!message.path("messageId").isTextual()) throw A2aException.invalidParams("message.messageId must be a string");
        if (!message.path("parts").isArray() || message.path("parts").isEmpty()) {
            throw A2aException.invalidParams("message.parts must be a non-empty array");
        }
        String taskId = optionalString(message, "taskId");
        String contextId = optionalString(message, "contextId");
        if (taskId != null) return answer(task(taskId, caller), contextId, caller, (ObjectNode) message.deepCopy());

        List<ContentBlock> prompt = prompt(message.path("parts"));
        if (!sessions.configured(cwd)) {
            throw new A2aException(ErrorCodes.INTERNAL_ERROR, "no model provider is configured. " + sessions.authHelp());
        }
        A2aContexts.Context ctx = contexts.open(contextId, caller);
        Session.Turn turn = beginTurn(ctx, caller);
        ObjectNode first = ((ObjectNode) message.deepCopy());
        String id = UUID.randomUUID().toString();
        first.put("taskId", id).put("contextId", ctx.id());
        A2aTask task = new A2aTask(id, ctx.id(), caller, first, t -> push.stateChanged(t, tasks.pushConfigs(t)));
        tasks.put(task);
        running.put(id, turn);
        return new Started(task, () -> Thread.ofVirtual().name("a2a-task-" + id).start(() -> run(ctx, task, turn, prompt)));
    }

    /** Reserves the context's turn slot; a cancelled task still winding down is waited for a little. */
    private Session.Turn beginTurn(A2aContexts.Context ctx, String caller) throws A2aException {
        long deadline = System.nanoTime() + BUSY_WAIT.toNanos();
        while (true) {
            CoreException.Busy busy;
            try {
                return ctx.session().beginTurn();
            } catch (CoreException.Busy e) {
                busy = e; // a task of this context is still running or winding down, here or on another instance
            }
            boolean windingDown = ctx.session().hasActiveTurn() // not another instance's turn
                    && tasks.all().stream().noneMatch(t -> t.contextId().equals(ctx.id()) && t.ownedBy(caller) && !t.isTerminal());
            if (!windingDown || System.nanoTime() > deadline) {
                throw A2aException.invalidRequest("context " + ctx.id() + " is busy with another task; "
                        + "answer or cancel that task first (" + busy.getMessage() + ")");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw A2aException.invalidRequest("interrupted");
            }
        }
    }

    private void run(A2aContexts.Context ctx, A2aTask task, Session.Turn turn, List<ContentBlock> prompt) {
        ctx.host().current(task);
        try {
            task.status("working", null);
            StopReason reason = turn.run(prompt).stopReason();
            switch (reason) {
                case CANCELLED -> task.status("canceled", null);
                case REFUSAL -> task.status("failed", A2aMessages.agent(task.id(), task.contextId(), "The model refused to answer.", null));
                case MAX_TURN_REQUESTS -> task.status("completed", A2aMessages.agent(task.id(), task.contextId(),
                        "Stopped: the turn reached its limit of model calls.", null));
                case MAX_TOKENS -> task.status("completed", A2aMessages.agent(task.id(), task.contextId(),
                        "Stopped: the answer reached the model's output limit.", null));
                case END_TURN -> task.status("completed", null);
            }
        } catch (RuntimeException e) {
            log.error("task {} failed", task.id(), e);
            task.status("failed", A2aMessages.agent(task.id(), task.contextId(), "The agent failed: " + e.getClass().getSimpleName(), null));
        } finally {
            running.remove(task.id());
            ctx.touch();
        }
    }

    /**
     * A message in an existing task of the caller's (see {@link #task(String, String)}): the answer to its
     * permission question (anything else asks again).
     */
    private Started answer(A2aTask task, String contextId, String caller, ObjectNode message) throws A2aException {
        if (contextId != null && !contextId.equals(task.contextId())) {
            throw A2aException.invalidParams("task " + task.id() + " belongs to context " + task.contextId() + ", not " + contextId);
        }
        if (task.isTerminal()) {
            throw A2aException.unsupported("task " + task.id() + " is " + task.state() + " and cannot take more messages; "
                    + "send a new message in its context instead");
        }
        if (!tasks.isLocal(task)) {
            throw A2aException.invalidRequest("task " + task.id() + " is " + task.state() + " on another instance of this"
                    + " agent; an answer to its question must reach that instance (route the task's messages to it)");
        }
        PendingQuestion q = task.question();
        if (q == null || !"input-required".equals(task.state())) {
            throw A2aException.invalidRequest("task " + task.id() + " is " + task.state() + " and is not waiting for input");
        }
        message.put("taskId", task.id()).put("contextId", task.contextId());
        task.addHistory(message);
        String reply = q.reply(message);
        return new Started(task, () -> {
            if (reply == null) {
                task.status("input-required", A2aMessages.agent(task.id(), task.contextId(),
                        q.text("That is not an answer to the question."), q.data()));
            } else {
                task.status("working", null);
                q.answer().complete(reply);
            }
        });
    }

    /** Text parts as they are, data parts as JSON text, image files as images; other files are refused. */
    private static List<ContentBlock> prompt(JsonNode parts) throws A2aException {
        List<ContentBlock> blocks = new ArrayList<>();
        for (JsonNode p : parts) {
            switch (p.path("kind").asText()) {
                case "text" -> {
                    if (!p.path("text").isTextual()) throw A2aException.invalidParams("a text part needs \"text\"");
                    blocks.add(ContentBlock.text(p.path("text").asText()));
                }
                case "data" -> blocks.add(ContentBlock.text(p.path("data").toString()));
                case "file" -> {
                    JsonNode f = p.path("file");
                    String mime = f.path("mimeType").asText("");
                    if (f.path("bytes").isTextual() && mime.startsWith("image/")) {
                        blocks.add(new ContentBlock.Image(f.path("bytes").asText(), mime, null, null, null));
                    } else if (f.path("bytes").isTextual() && mime.startsWith("text/")) {
                        try {
                            blocks.add(ContentBlock.text(new String(java.util.Base64.getDecoder().decode(f.path("bytes").asText()),
                                    java.nio.charset.StandardCharsets.UTF_8)));
                        } catch (IllegalArgumentException e) {
                            throw A2aException.invalidParams("file.bytes is not base64");
                        }
                    } else {
                        throw new A2aException(A2aException.CONTENT_TYPE_NOT_SUPPORTED,
                                "file parts are accepted as inline images or text (bytes with an image/* or text/* mimeType)");
                    }
                }
                default -> throw A2aException.invalidParams("unknown part kind \"" + p.path("kind").asText() + "\"");
            }
        }
        return blocks;
    }

    // ---------------------------------------------------------------- tasks/*

    /**
     * The task {@code id} if {@code caller} started it. Every task operation goes through here: a task is its
     * caller's alone (its messages, its answer, its questions, which let commands run), so to anyone else it is "not
     * found", exactly as a task that does not exist.
     */
    A2aTask task(String id, String caller) throws A2aException {
        return tasks.find(id).filter(t -> t.ownedBy(caller)).orElseThrow(() -> A2aException.taskNotFound(id));
    }

    A2aTask task(JsonNode params, String caller) throws A2aException {
        return task(requireString(params, "id"), caller);
    }

    /**
     * The tasks the caller started (1.0's ListTasks shows a caller only its own): with a shared store, those of every
     * instance and the ended ones too.
     */
    List<A2aTask> tasksOf(String caller) {
        return List.copyOf(tasks.ownedBy(caller));
    }

    ObjectNode get(JsonNode params, String caller) throws A2aException {
        A2aTask task = task(params, caller);
        return task.snapshot(historyLength(params));
    }

    static Integer historyLength(JsonNode params) throws A2aException {
        JsonNode h = params.path("historyLength");
        if (h.isMissingNode() || h.isNull()) return null;
        if (!h.canConvertToInt() || !h.isIntegralNumber() || h.asInt() < 0) {
            throw A2aException.invalidParams("historyLength must be a non-negative integer");
        }
        return h.asInt();
    }

    ObjectNode cancel(JsonNode params, String caller) throws A2aException {
        A2aTask task = task(params, caller);
        if (!tasks.isLocal(task) && !task.isTerminal()) return tasks.cancelElsewhere(task).snapshot(null);
        if (!cancel(task)) {
            throw new A2aException(A2aException.TASK_NOT_CANCELABLE, "Task cannot be canceled: it is already " + task.state());
        }
        return task.snapshot(null);
    }

    /** Cancels a task that has not ended: its status first, then its question and its turn. False if it had ended. */
    private boolean cancel(A2aTask task) {
        synchronized (task) {
            if (task.isTerminal()) return false;
            task.status("canceled", null);
        }
        PendingQuestion q = task.question();
        if (q != null) q.answer().cancel(false);
        Session.Turn turn = running.get(task.id());
        if (turn != null) turn.cancellation().cancel();
        return true;
    }

    // ---------------------------------------------------------------- push notification configs

    ObjectNode setPushConfig(JsonNode params, String caller) throws A2aException {
        A2aTask task = task(requireString(params, "taskId"), caller);
        JsonNode config = requireObject(params, "pushNotificationConfig");
        checkWebhook(requireString(config, "url"));
        String id = optionalString(config, "id");
        ObjectNode stored = PushNotifier.normalize(config, id != null ? id : task.id());
        tasks.putPushConfig(task, stored.path("id").asText(), stored);
        return pushConfig(task, stored);
    }

    /** Refuses a webhook URL the network guard would not POST to (see {@link PushNotifier#refusal}). */
    void checkWebhook(String url) throws A2aException {
        Optional<String> refused = push.refusal(url);
        if (refused.isPresent()) throw A2aException.invalidParams("pushNotificationConfig.url is refused: " + refused.get());
    }

    ObjectNode getPushConfig(JsonNode params, String caller) throws A2aException {
        A2aTask task = task(params, caller);
        String configId = optionalString(params, "pushNotificationConfigId");
        Map<String, ObjectNode> configs = tasks.pushConfigs(task);
        ObjectNode c = configId != null ? configs.get(configId) : configs.values().stream().findFirst().orElse(null);
        if (c == null) throw A2aException.invalidParams("task " + task.id() + " has no push notification config"
                + (configId != null ? " \"" + configId + "\"" : ""));
        return pushConfig(task, c);
    }

    ArrayNode listPushConfigs(JsonNode params, String caller) throws A2aException {
        A2aTask task = task(params, caller);
        ArrayNode list = Json.mapper().createArrayNode();
        for (ObjectNode c : tasks.pushConfigs(task).values()) list.add(pushConfig(task, c));
        return list;
    }

    void deletePushConfig(JsonNode params, String caller) throws A2aException {
        A2aTask task = task(params, caller);
        String configId = requireString(params, "pushNotificationConfigId");
        if (!tasks.removePushConfig(task, configId)) {
            throw A2aException.invalidParams("task " + task.id() + " has no push notification config \"" + configId + "\"");
        }
    }

    private static ObjectNode pushConfig(A2aTask task, ObjectNode config) {
        ObjectNode r = Json.object().put("taskId", task.id());
        ObjectNode c = config.deepCopy();
        c.remove(PushNotifier.WIRE);
        r.set("pushNotificationConfig", c);
        return r;
    }

    // ---------------------------------------------------------------- shutdown

    /** See {@link A2aContexts#closeIdle}. */
    int closeIdle(Duration idle) { return contexts.closeIdle(idle); }

    /** Cancels every running task, waits up to {@code grace} for their turns to record it, closes the sessions. */
    void shutdown(Duration grace) {
        tasks.all().forEach(this::cancel);
        long deadline = System.nanoTime() + grace.toNanos();
        while (!running.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        contexts.closeAll();
        tasks.close();
        push.close();
    }

    // ---------------------------------------------------------------- params

    private static JsonNode requireObject(JsonNode params, String name) throws A2aException {
        JsonNode v = params.path(name);
        if (!v.isObject()) throw A2aException.invalidParams("\"" + name + "\" must be an object");
        return v;
    }

    private static String requireString(JsonNode params, String name) throws A2aException {
        JsonNode v = params.path(name);
        if (!v.isTextual() || v.asText().isEmpty()) throw A2aException.invalidParams("\"" + name + "\" must be a non-empty string");
        return v.asText();
    }

    private static String optionalString(JsonNode params, String name) throws A2aException {
        JsonNode v = params.path(name);
        if (v.isMissingNode() || v.isNull()) return null;
        if (!v.isTextual() || v.asText().isEmpty()) throw A2aException.invalidParams("\"" + name + "\" must be a non-empty string");
        return v.asText();
    }
}
