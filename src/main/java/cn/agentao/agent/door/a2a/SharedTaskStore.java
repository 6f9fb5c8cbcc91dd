package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Tasks in the shared session store, so that every instance on one database serves every task. A task started here
 * is saved at each status change (before its subscribers hear of it) and, while it streams, every {@link #POLL}
 * with its text so far. Another instance's task is read from the store: {@code tasks/get} sees it as saved, a
 * stream ({@code tasks/resubscribe}) follows it by reading it again every {@link #POLL}, {@code tasks/cancel} asks
 * its instance through the store (which looks for requests every {@link #POLL}) and waits for the cancel to land.
 * A task whose context no instance holds any more (its instance stopped mid-turn) is marked failed, or cancelled
 * when asked. Ended tasks are deleted {@link #KEEP_ENDED} after their last change.
 */
final class SharedTaskStore implements TaskStore {
    private static final Logger log = LoggerFactory.getLogger(SharedTaskStore.class);
    static final Duration POLL = Duration.ofMillis(200);
    static final Duration KEEP_ENDED = Duration.ofDays(7);
    /** A task not saved for this long while nobody holds its context is an abandoned one. */
    private static final Duration ABANDONED_AFTER = Duration.ofSeconds(3);
    private static final Duration CANCEL_WAIT = Duration.ofSeconds(10);
    private static final Duration EXPIRE_EVERY = Duration.ofHours(1);
    /** Another instance's task read for a request, kept this long to be followed by a stream. */
    private static final Duration KEEP_FOLLOWED = Duration.ofSeconds(30);

    private record Followed(A2aTask task, long readAt) {}

    private final TaskRepository repository;
    private final SessionService sessions;
    private final Map<String, A2aTask> local = new ConcurrentHashMap<>();
    private final Map<String, Followed> others = new ConcurrentHashMap<>();
    private final Set<A2aTask> unsaved = ConcurrentHashMap.newKeySet();
    private volatile Consumer<A2aTask> cancel = t -> { };
    private volatile boolean closed;
    private final Thread poller;

    SharedTaskStore(TaskRepository repository, SessionService sessions) {
        this.repository = repository;
        this.sessions = sessions;
        this.poller = Thread.ofVirtual().name("a2a-shared-tasks").start(this::poll);
    }

    @Override
    public void put(A2aTask task) {
        local.put(task.id(), task);
        task.persistence(this::save, unsaved::add);
        save(task);
    }

    @Override
    public Optional<A2aTask> find(String taskId) {
        A2aTask mine = local.get(taskId);
        if (mine != null) return Optional.of(mine);
        Optional<TaskRepository.StoredTask> stored = read(taskId);
        if (stored.isEmpty()) return Optional.empty();
        ObjectNode body = parse(stored.get());
        if (body == null) return Optional.empty();
        Followed prev = others.get(taskId);
        A2aTask task;
        if (prev != null && !prev.task().isTerminal()) { // one object per task while it runs: a stream may follow it
            task = prev.task();
            task.follow(body);
        } else {
            task = A2aTask.fromSnapshot(body);
        }
        others.put(taskId, new Followed(task, System.nanoTime()));
        endIfAbandoned(task, stored.get(), "failed", ABANDONED_AFTER);
        return Optional.of(task);
    }

    @Override
    public Collection<A2aTask> all() { return List.copyOf(local.values()); }

    /**
     * The caller's tasks in the store (every instance's, ended ones until they expire), with this process's own as
     * they are now; another instance's open task that instance abandoned is ended as {@link #find} ends it. A store
     * that cannot be read is an error, not a shorter list.
     */
    @Override
    public Collection<A2aTask> ownedBy(String caller) {
        if (caller == null) return List.of();
        Map<String, A2aTask> out = new LinkedHashMap<>();
        for (TaskRepository.StoredTask stored : repository.ownedBy(caller)) {
            if (local.containsKey(stored.id())) continue;
            ObjectNode body = parse(stored);
            if (body == null) continue;
            A2aTask task = A2aTask.fromSnapshot(body);
            endIfAbandoned(task, stored, "failed", ABANDONED_AFTER);
            out.put(stored.id(), task);
        }
        for (A2aTask t : local.values()) {
            if (t.ownedBy(caller)) out.put(t.id(), t);
        }
        return out.values().stream().filter(t -> t.ownedBy(caller)).toList();
    }

    @Override
    public boolean isLocal(A2aTask task) { return local.get(task.id()) == task; }

    @Override
    public A2aTask cancelElsewhere(A2aTask task) {
        Optional<TaskRepository.StoredTask> stored = read(task.id());
        if (stored.isEmpty() || endIfAbandoned(task, stored.get(), "canceled", Duration.ZERO)) return task;
        repository.requestCancel(task.id());
        long deadline = System.nanoTime() + CANCEL_WAIT.toNanos();
        A2aTask latest = task;
        while (System.nanoTime() < deadline) {
            try {
                Thread.sleep(POLL.toMillis() / 2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            latest = find(task.id()).orElse(latest);
            if (latest.isTerminal()) break;
        }
        return latest;
    }

    /**
     * Ends another instance's task that is still open in the store though no instance holds its context (and it was
     * not saved for {@code after}): its instance stopped mid-turn. Saved here; true if so.
     */
    private boolean endIfAbandoned(A2aTask task, TaskRepository.StoredTask stored, String state, Duration after) {
        if (task.isTerminal() || stored.updatedAt().isAfter(Instant.now().minus(after))) return false;
        if (!sessions.isIdleEverywhere(task.sessionId())) return false;
        task.status(state, "canceled".equals(state) ? null : A2aMessages.agent(task.id(), task.contextId(),
                "The agent instance serving this task stopped before it ended; what was completed is kept in the "
                        + "context: send a new message in it to continue.", null));
        save(task);
        return true;
    }

    @Override
    public void onCancelRequest(Consumer<A2aTask> cancel) { this.cancel = cancel; }

    @Override
    public Map<String, ObjectNode> pushConfigs(A2aTask task) {
        Map<String, ObjectNode> out = new LinkedHashMap<>();
        try {
            repository.pushConfigs(task.id()).forEach((id, body) -> {
                ObjectNode c = parse(body);
                if (c != null) out.put(id, c);
            });
        } catch (SessionStoreException e) {
            log.warn("task {}: its push notification configs cannot be read: {}", task.id(), e.getMessage());
        }
        return out;
    }

    @Override
    public void putPushConfig(A2aTask task, String configId, ObjectNode config) {
        repository.putPushConfig(task.id(), configId, config.toString());
    }

    @Override
    public boolean removePushConfig(A2aTask task, String configId) {
        return repository.deletePushConfig(task.id(), configId);
    }

    private void save(A2aTask task) {
        unsaved.remove(task);
        try {
            // under the task's lock, as a status change saves: else the poller's older snapshot (streamed text while
            // working) could be written after the final state, and the task later be taken for abandoned
            synchronized (task) {
                repository.save(task.id(), task.contextId(), task.state(), task.stored().toString());
            }
        } catch (SessionStoreException e) {
            unsaved.add(task); // tried again at the next poll
            log.warn("task {} could not be saved: {}", task.id(), e.getMessage());
        }
    }

    private Optional<TaskRepository.StoredTask> read(String taskId) {
        try {
            return repository.find(taskId);
        } catch (SessionStoreException e) {
            log.warn("task {} cannot be read: {}", taskId, e.getMessage());
            return Optional.empty();
        }
    }

    private static ObjectNode parse(TaskRepository.StoredTask stored) {
        ObjectNode body = parse(stored.body());
        if (body == null) log.warn("task {}: its stored JSON cannot be read", stored.id());
        return body;
    }

    private static ObjectNode parse(String json) {
        try {
            JsonNode n = Json.mapper().readTree(json);
            return n instanceof ObjectNode o ? o : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Every {@link #POLL}: saves streamed text, passes on cancel requests, follows streamed tasks, forgets ended ones. */
    private void poll() {
        long lastExpiry = 0;
        while (!closed) {
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            try {
                for (A2aTask t : List.copyOf(unsaved)) save(t);
                List<String> running = local.values().stream().filter(t -> !t.isTerminal()).map(A2aTask::id).toList();
                for (String id : repository.cancelRequested(running)) {
                    A2aTask t = local.get(id);
                    if (t != null) cancel.accept(t);
                }
                long now = System.nanoTime();
                for (Followed f : List.copyOf(others.values())) {
                    A2aTask t = f.task();
                    if (t.hasSubscribers() && !t.isTerminal()) find(t.id());
                    else if (t.isTerminal() || now - f.readAt() > KEEP_FOLLOWED.toNanos()) others.remove(t.id(), f);
                }
                local.values().removeIf(t -> t.isTerminal() && !unsaved.contains(t)); // in the store from now on
                if (now - lastExpiry > EXPIRE_EVERY.toNanos() || lastExpiry == 0) {
                    lastExpiry = now;
                    int n = repository.expire(A2aTask.TERMINAL, Instant.now().minus(KEEP_ENDED));
                    if (n > 0) log.info("deleted {} tasks that ended more than {} days ago", n, KEEP_ENDED.toDays());
                }
            } catch (RuntimeException e) {
                log.debug("shared tasks: {}", e.toString());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        poller.interrupt();
        for (A2aTask t : List.copyOf(unsaved)) save(t);
    }
}
