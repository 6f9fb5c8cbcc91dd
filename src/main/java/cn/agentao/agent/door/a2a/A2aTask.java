package cn.agentao.agent.door.a2a;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * One A2A task: its status, history and the streamed answer artifact, and the streams listening to it. Every
 * change is published to the subscribers as the event A2A streams ({@code status-update}, {@code artifact-update})
 * under the task's lock, so each subscriber sees the changes in order and none is lost between a snapshot and
 * its subscription.
 */
public final class A2aTask {
    static final Set<String> TERMINAL = Set.of("completed", "canceled", "failed", "rejected");
    static final Set<String> INTERRUPTED = Set.of("input-required", "auth-required");

    private final String id;
    private final String contextId;
    /**
     * Who started it (the caller's credential as {@code A2aServer} names it, a digest, never the token): only it may
     * read, follow, cancel or continue the task. Saved with the task in a shared store ({@link #stored}); null for a
     * task saved without one (by an older version), which nobody owns.
     */
    private final String owner;
    private final List<ObjectNode> history = new ArrayList<>();
    private final Map<String, ObjectNode> pushConfigs = new LinkedHashMap<>();
    private final List<Consumer<ObjectNode>> subscribers = new CopyOnWriteArrayList<>();
    private final Consumer<A2aTask> onStateChange;
    private ObjectNode status;
    private final StringBuilder answer = new StringBuilder();
    private boolean answerStarted;
    private volatile PendingQuestion question;
    /** Saves a new status before the subscribers hear of it; notes streamed text to be saved soon (a shared store). */
    private volatile Consumer<A2aTask> saveNow = t -> { };
    private volatile Consumer<A2aTask> saveSoon = t -> { };

    A2aTask(String id, String contextId, String owner, ObjectNode firstMessage, Consumer<A2aTask> onStateChange) {
        this.id = id;
        this.contextId = contextId;
        this.owner = owner;
        this.onStateChange = onStateChange;
        this.status = A2aMessages.status("submitted", null);
        if (firstMessage != null) history.add(firstMessage);
    }

    /**
     * Another instance's task as a shared store holds it ({@link #snapshot}'s JSON): read only here, kept up to date
     * with {@link #follow}.
     */
    static A2aTask fromSnapshot(ObjectNode stored) {
        String owner = stored.path(OWNER).isTextual() ? stored.path(OWNER).asText() : null;
        A2aTask t = new A2aTask(stored.path("id").asText(), stored.path("contextId").asText(), owner, null, x -> { });
        synchronized (t) {
            if (stored.path("status").isObject()) t.status = (ObjectNode) stored.get("status").deepCopy();
            for (var m : stored.path("history")) if (m.isObject()) t.history.add((ObjectNode) m.deepCopy());
            t.answer.append(storedAnswer(stored));
            t.answerStarted = !t.answer.isEmpty() && !t.isTerminal(); // more text appends to what the caller has
        }
        return t;
    }

    /** The field of a {@link #stored} document naming the owner; never part of what A2A returns. */
    private static final String OWNER = "owner";

    /** The task as a shared store keeps it: its {@link #snapshot} and its owner, read back by {@link #fromSnapshot}. */
    synchronized ObjectNode stored() {
        ObjectNode t = snapshot(null);
        if (owner != null) t.put(OWNER, owner);
        return t;
    }

    /** Whether {@code caller} started this task (a task without a known owner is nobody's). */
    boolean ownedBy(String caller) { return owner != null && owner.equals(caller); }

    /** The session behind the task's context (see {@link A2aContexts#sessionId}). */
    String sessionId() { return A2aContexts.sessionId(owner, contextId); }

    private static String storedAnswer(ObjectNode stored) {
        return stored.path("artifacts").path(0).path("parts").path(0).path("text").asText("");
    }

    /** Brings a task {@link #fromSnapshot read from the store} up to its stored state, publishing what changed. */
    void follow(ObjectNode stored) {
        String text = storedAnswer(stored);
        synchronized (this) {
            if (text.length() > answer.length() && text.startsWith(answer.toString())) {
                answerChunk(text.substring(answer.length()));
            }
        }
        String state = stored.path("status").path("state").asText();
        if (!state.isEmpty() && !state.equals(state())) {
            JsonNode message = stored.path("status").path("message");
            status(state, message.isObject() ? (ObjectNode) message.deepCopy() : null);
        }
    }

    /** Where a shared store saves this task: {@code now} at each status change, {@code soon} after streamed text. */
    void persistence(Consumer<A2aTask> now, Consumer<A2aTask> soon) {
        this.saveNow = now;
        this.saveSoon = soon;
    }

    boolean hasSubscribers() { return !subscribers.isEmpty(); }

    public String id() { return id; }
    public String contextId() { return contextId; }
    public synchronized String state() { return status.path("state").asText(); }
    synchronized boolean isTerminal() { return TERMINAL.contains(state()); }

    /** The task as A2A returns it; {@code historyLength} null keeps the whole history, 0 none. */
    synchronized ObjectNode snapshot(Integer historyLength) {
        ObjectNode t = Json.object().put("kind", "task").put("id", id).put("contextId", contextId);
        t.set("status", status.deepCopy());
        if (historyLength == null || historyLength > 0) {
            ArrayNode h = t.putArray("history");
            int from = historyLength == null ? 0 : Math.max(0, history.size() - historyLength);
            for (ObjectNode m : history.subList(from, history.size())) h.add(m.deepCopy());
        }
        if (!answer.isEmpty()) {
            ArrayNode artifacts = t.putArray("artifacts");
            artifact(artifacts.addObject(), answer.toString());
        }
        return t;
    }

    private void artifact(ObjectNode a, String text) {
        a.put("artifactId", id + "-answer").put("name", "answer");
        a.putArray("parts").addObject().put("kind", "text").put("text", text);
    }

    /** Registers a listener after handing it the current snapshot, atomically. Returns false for a terminal task. */
    synchronized boolean subscribe(Consumer<ObjectNode> listener, boolean sendSnapshot) {
        if (sendSnapshot) listener.accept(snapshot(null));
        if (isTerminal()) return false;
        subscribers.add(listener);
        return true;
    }

    void unsubscribe(Consumer<ObjectNode> listener) { subscribers.remove(listener); }

    synchronized void addHistory(ObjectNode message) { history.add(message); }

    /** A new status; final for terminal and interrupted states. Ignored once the task is terminal. */
    void status(String state, ObjectNode message) {
        synchronized (this) {
            if (isTerminal()) return;
            if (TERMINAL.contains(state)) closeAnswer();
            status = A2aMessages.status(state, message);
            if (message != null) history.add(message);
            boolean fin = TERMINAL.contains(state) || INTERRUPTED.contains(state);
            ObjectNode e = Json.object().put("kind", "status-update").put("taskId", id).put("contextId", contextId);
            e.set("status", status.deepCopy());
            e.put("final", fin);
            saveNow.accept(this);
            publish(e);
        }
        onStateChange.accept(this);
    }

    /** Appends streamed answer text (the first chunk opens the artifact, later ones append to it). */
    synchronized void answerChunk(String text) {
        if (isTerminal() || text.isEmpty()) return;
        boolean append = answerStarted;
        answerStarted = true;
        answer.append(text);
        ObjectNode e = Json.object().put("kind", "artifact-update").put("taskId", id).put("contextId", contextId);
        artifact(e.putObject("artifact"), text);
        e.put("append", append).put("lastChunk", false);
        publish(e);
        saveSoon.accept(this);
    }

    /** Marks the answer complete with an empty last chunk, so streaming clients know it is whole. */
    private void closeAnswer() {
        if (!answerStarted) return;
        answerStarted = false;
        ObjectNode e = Json.object().put("kind", "artifact-update").put("taskId", id).put("contextId", contextId);
        artifact(e.putObject("artifact"), "");
        e.put("append", true).put("lastChunk", true);
        publish(e);
    }

    synchronized String answerText() { return answer.toString(); }

    private void publish(ObjectNode event) {
        for (Consumer<ObjectNode> s : subscribers) s.accept(event);
        if (event.path("final").asBoolean(false)) subscribers.clear();
    }

    PendingQuestion question() { return question; }
    void question(PendingQuestion q) { this.question = q; }

    synchronized Map<String, ObjectNode> pushConfigs() { return new LinkedHashMap<>(pushConfigs); }
    synchronized void putPushConfig(String configId, ObjectNode config) { pushConfigs.put(configId, config); }
    synchronized boolean removePushConfig(String configId) { return pushConfigs.remove(configId) != null; }
}
