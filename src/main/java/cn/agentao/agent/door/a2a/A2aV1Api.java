package cn.agentao.agent.door.a2a;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The A2A 1.0 operations, once for both 1.0 bindings (JSON-RPC in {@link JsonRpcHandler}, HTTP+JSON in
 * {@link A2aRestHandler}): each takes its 1.0 request object (the binding builds it from the JSON-RPC params or
 * from the path, query and body) and the caller (the credential the request came with, see {@code A2aServer}), and
 * answers in 1.0 shapes ({@link A2aV1Wire}) over the one task model of {@link A2aService}. Each method is one
 * operation of the specification; each finds its task through {@code A2aService#task(String, String)}, so a task is
 * served only to the caller that started it.
 */
final class A2aV1Api {
    private final A2aService service;
    /**
     * The card a caller that passed the token reads ({@code GetExtendedAgentCard}), in 1.0's shape alone; null when
     * no token is configured.
     */
    private final ObjectNode extendedCard;

    A2aV1Api(A2aService service, ObjectNode extendedCard) {
        this.service = service;
        this.extendedCard = extendedCard == null ? null : AgentCard.v1Only(extendedCard);
    }

    /** {@code SendMessage}: the task when it ends or pauses for input, or at once with {@code returnImmediately}. */
    ObjectNode sendMessage(JsonNode request, String caller) throws A2aException {
        ObjectNode p = A2aV1Wire.sendParams(request);
        A2aService.Started s = send(p, request, caller);
        if (p.path("configuration").path("blocking").asBoolean(true)) JsonRpcHandler.awaitPause(s);
        else s.start().run();
        ObjectNode r = Json.object();
        r.set("task", A2aV1Wire.task(s.task().snapshot(A2aService.historyLength(p.path("configuration")))));
        return r;
    }

    /** {@code SendStreamingMessage}: the task and what sets it going once the stream listens. */
    A2aService.Started sendStreamingMessage(JsonNode request, String caller) throws A2aException {
        return send(A2aV1Wire.sendParams(request), request, caller);
    }

    /**
     * The task the message starts or continues, with the webhook of {@code configuration.taskPushNotificationConfig}
     * (if any) set on it before it runs, so that it hears every state change; the webhook's url is checked before the
     * task is made, so a refused one leaves nothing behind.
     */
    private A2aService.Started send(ObjectNode params, JsonNode request, String caller) throws A2aException {
        JsonNode inline = request.path("configuration").path("taskPushNotificationConfig");
        ObjectNode push = null;
        if (!inline.isMissingNode() && !inline.isNull()) {
            if (!inline.isObject()) throw A2aException.invalidParams("configuration.taskPushNotificationConfig must be an object");
            push = A2aV1Wire.pushConfigParams(inline);
            service.checkWebhook(push.path("pushNotificationConfig").path("url").asText());
        }
        A2aService.Started s = service.send(params, caller);
        if (push != null) {
            push.put("taskId", s.task().id());
            service.setPushConfig(push, caller);
        }
        return s;
    }

    /** {@code SubscribeToTask}: the open task whose events to stream; a finished one is UnsupportedOperationError. */
    A2aTask subscribeToTask(JsonNode request, String caller) throws A2aException {
        A2aTask task = service.task(request, caller);
        if (task.isTerminal()) {
            throw A2aException.unsupported("task " + task.id() + " is " + task.state() + ": there is nothing to subscribe to");
        }
        return task;
    }

    /** {@code GetTask} ({@code id}, {@code historyLength}). */
    ObjectNode getTask(JsonNode request, String caller) throws A2aException {
        return A2aV1Wire.task(service.get(request, caller));
    }

    /** {@code ListTasks}: the caller's tasks, filtered and paged (see {@link A2aV1Wire#listTasks}). */
    ObjectNode listTasks(JsonNode request, String caller) throws A2aException {
        return A2aV1Wire.listTasks(service.tasksOf(caller), request);
    }

    /** {@code CancelTask} ({@code id}). */
    ObjectNode cancelTask(JsonNode request, String caller) throws A2aException {
        return A2aV1Wire.task(service.cancel(request, caller));
    }

    /** {@code CreateTaskPushNotificationConfig}: a {@code TaskPushNotificationConfig}; its url passes the network guard. */
    ObjectNode createPushConfig(JsonNode request, String caller) throws A2aException {
        ObjectNode set = service.setPushConfig(A2aV1Wire.pushConfigParams(request), caller);
        return A2aV1Wire.pushConfig(set);
    }

    /** {@code GetTaskPushNotificationConfig} ({@code taskId}, {@code id}). */
    ObjectNode getPushConfig(JsonNode request, String caller) throws A2aException {
        return A2aV1Wire.pushConfig(service.getPushConfig(A2aV1Wire.pushConfigRef(request, true), caller));
    }

    /** {@code ListTaskPushNotificationConfigs} ({@code taskId}): every config of the task, on one page. */
    ObjectNode listPushConfigs(JsonNode request, String caller) throws A2aException {
        ObjectNode r = Json.object();
        ArrayNode configs = r.putArray("configs");
        for (JsonNode c : service.listPushConfigs(A2aV1Wire.pushConfigRef(request, false), caller)) configs.add(A2aV1Wire.pushConfig(c));
        r.put("nextPageToken", "");
        return r;
    }

    /** {@code DeleteTaskPushNotificationConfig} ({@code taskId}, {@code id}). */
    void deletePushConfig(JsonNode request, String caller) throws A2aException {
        service.deletePushConfig(A2aV1Wire.pushConfigRef(request, true), caller);
    }

    /** {@code GetExtendedAgentCard}: only with a token configured (and so only for a caller that sent it). */
    ObjectNode extendedAgentCard(String caller) throws A2aException {
        if (extendedCard == null) {
            throw A2aException.unsupported("this agent has no extended agent card: it is served without a token, and its "
                    + "card says capabilities.extendedAgentCard false");
        }
        return extendedCard.deepCopy();
    }
}
