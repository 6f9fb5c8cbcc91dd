package cn.agentao.agent.door.a2a;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where the server keeps its tasks: in this process ({@link MemoryTaskStore}), or in the shared session store so
 * that every instance on one database serves every task ({@link SharedTaskStore}).
 */
public interface TaskStore extends AutoCloseable {
    /** A new task of this process. */
    void put(A2aTask task);

    /** A task of this process, or (a shared store) another instance's, read from the store as it is now. */
    Optional<A2aTask> find(String taskId);

    /** The tasks of this process. */
    Collection<A2aTask> all();

    /**
     * The tasks {@code caller} started that {@code ListTasks} shows: of this process, and for a shared store also those
     * of the other instances and those that ended (as stored).
     */
    default Collection<A2aTask> ownedBy(String caller) {
        return all().stream().filter(t -> t.ownedBy(caller)).toList();
    }

    /** Whether the task runs in this process (else another instance runs it). */
    default boolean isLocal(A2aTask task) { return true; }

    /**
     * Asks the instance running another instance's task to cancel it (or cancels it here if that instance is gone)
     * and returns the task as it is then, having waited a little for the cancel to land.
     */
    default A2aTask cancelElsewhere(A2aTask task) { return task; }

    /** Who cancels a task of this process when another instance asks. */
    default void onCancelRequest(Consumer<A2aTask> cancel) { }

    default Map<String, ObjectNode> pushConfigs(A2aTask task) { return task.pushConfigs(); }

    default void putPushConfig(A2aTask task, String configId, ObjectNode config) { task.putPushConfig(configId, config); }

    default boolean removePushConfig(A2aTask task, String configId) { return task.removePushConfig(configId); }

    @Override
    default void close() { }
}
