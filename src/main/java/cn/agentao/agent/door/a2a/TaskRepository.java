package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.store.postgres.PostgresSessionRepository;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where the A2A door keeps the tasks several instances share (on PostgreSQL, beside the sessions): each task an opaque JSON
 * document the door writes, with its id, context, state and times, a flag saying another instance asked for it to
 * be cancelled, and the task's push-notification configurations (opaque too). The door owns what the documents
 * mean; the repository only keeps them. Failures are {@link SessionStoreException}s.
 */
public interface TaskRepository {
    /** The tasks of {@code sessions}' repository when several instances share it (PostgreSQL); else empty. */
    static Optional<TaskRepository> shared(SessionService sessions) {
        return sessions.sharedRepository().filter(r -> r instanceof PostgresSessionRepository)
                .map(r -> new PostgresTaskRepository((PostgresSessionRepository) r));
    }

    /** A task as stored. */
    record StoredTask(String id, String contextId, String state, String body, boolean cancelRequested, Instant updatedAt) {}

    /** Stores the task's document (a new task, or its latest state). */
    void save(String id, String contextId, String state, String body);

    Optional<StoredTask> find(String id);

    /**
     * Every stored task whose document names {@code owner} in its {@code owner} member (the one member of the
     * documents the repository reads: {@code ListTasks} shows a caller its own tasks, from every instance, ended
     * ones too), most recently updated first.
     */
    List<StoredTask> ownedBy(String owner);

    /** Asks whoever runs the task to cancel it; false if there is no such task. */
    boolean requestCancel(String id);

    /** Those of {@code ids} whose cancellation was asked for. */
    Set<String> cancelRequested(Collection<String> ids);

    /** The task's push-notification configurations by id, in the order they were first set. */
    Map<String, String> pushConfigs(String taskId);

    void putPushConfig(String taskId, String configId, String body);

    /** False if the task had no such configuration. */
    boolean deletePushConfig(String taskId, String configId);

    /** Deletes the tasks in one of {@code states} not updated since {@code before}; returns how many. */
    int expire(Collection<String> states, Instant before);
}
