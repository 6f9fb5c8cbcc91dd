package cn.agentao.agent.door.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.concurrent.CompletableFuture;

/** Something a running task asks its caller ({@code input-required}); the next message of the task answers it. */
sealed interface PendingQuestion permits PermissionQuestion, UserQuestion {
    /** The answer the core is waiting for; cancelled when the task is. */
    CompletableFuture<String> answer();

    /** The question as text, after {@code preface} when one is given (a repeated question says why). */
    String text(String preface);

    /** The question as data, for callers that answer programmatically. */
    ObjectNode data();

    /** The answer a reply gives, or null when it is not one (the question is then asked again). */
    String reply(JsonNode message);
}
