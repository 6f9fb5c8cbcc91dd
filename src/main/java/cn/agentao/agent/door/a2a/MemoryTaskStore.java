package cn.agentao.agent.door.a2a;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Tasks of this process, kept while it runs (their conversations are durable in the session store). */
public final class MemoryTaskStore implements TaskStore {
    private final ConcurrentHashMap<String, A2aTask> tasks = new ConcurrentHashMap<>();

    @Override public void put(A2aTask task) { tasks.put(task.id(), task); }

    @Override public Optional<A2aTask> find(String taskId) { return Optional.ofNullable(tasks.get(taskId)); }

    @Override public Collection<A2aTask> all() { return List.copyOf(tasks.values()); }
}
