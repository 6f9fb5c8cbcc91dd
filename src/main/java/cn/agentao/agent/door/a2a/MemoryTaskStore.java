package cn.agentao.agent.door.a2a;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/**
 * Tasks of this process, kept while it runs (their conversations are durable in the session store), at most
 * {@link #LIMIT}: beyond that the oldest ended tasks are forgotten ({@code tasks/get} then says the task is not
 * found); a task that has not ended is never dropped.
 */
public final class MemoryTaskStore implements TaskStore {
    static final int LIMIT = 10_000;
    private final int limit;
    private final LinkedHashMap<String, A2aTask> tasks = new LinkedHashMap<>(); // guarded by this, oldest first

    public MemoryTaskStore() { this(LIMIT); }

    MemoryTaskStore(int limit) { this.limit = limit; }

    @Override
    public synchronized void put(A2aTask task) {
        tasks.put(task.id(), task);
        for (Iterator<A2aTask> it = tasks.values().iterator(); tasks.size() > limit && it.hasNext(); ) {
            if (it.next().isTerminal()) it.remove();
        }
    }

    @Override
    public synchronized Optional<A2aTask> find(String taskId) { return Optional.ofNullable(tasks.get(taskId)); }

    @Override
    public synchronized Collection<A2aTask> all() { return List.copyOf(new ArrayList<>(tasks.values())); }
}
