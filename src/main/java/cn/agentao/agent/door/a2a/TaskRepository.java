package cn.agentao.agent.core.repository;

import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where a door keeps the tasks several instances share (A2A's tasks on PostgreSQL): each task an opaque JSON
 * document the door writes, with its id, context, state and times, a flag saying another instance asked for it to
 * be cancelled, and the task's push-notification configurations (opaque too). The door owns what the documents
 * mean; the repository only keeps them. Failures are {@link SessionStoreException}s.
 */
public interface TaskRepository {
    /** A task as stored. */
    record StoredTask(String id, String contextId, String state, String body, boolean cancelRequested, Instant updatedAt) {}

    /** Stores the task's document (a new task, or its latest state). */
    void save(String id, String contextId, String state, String body);

    Optional<StoredTask> find(String id);

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
