package cn.agentao.agent.door.a2a;

import java.util.Collection;
import java.util.Optional;

/** Where the server keeps its tasks (in memory now; a database later, issue #20). */
public interface TaskStore {
    void put(A2aTask task);

    Optional<A2aTask> find(String taskId);

    Collection<A2aTask> all();
}
