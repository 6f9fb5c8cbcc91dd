package cn.agentao.agent.door.a2a;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The in-memory task store is bounded: past its limit the oldest ended tasks go; a task still running never does. */
class MemoryTaskStoreTest {
    private static A2aTask task(String id, String state) {
        A2aTask t = new A2aTask(id, "ctx", "local", null, x -> { });
        if (state != null) t.status(state, null);
        return t;
    }

    @Test
    void pastTheLimitTheOldestEndedTasksAreForgottenAndRunningOnesKept() {
        MemoryTaskStore store = new MemoryTaskStore(3);
        store.put(task("running-old", "working"));
        store.put(task("done-1", "completed"));
        store.put(task("done-2", "canceled"));
        store.put(task("new", "working"));

        assertTrue(store.find("running-old").isPresent(), "a running task is never dropped");
        assertTrue(store.find("done-1").isEmpty(), "the oldest ended task went first");
        assertTrue(store.find("done-2").isPresent());
        assertTrue(store.find("new").isPresent());
        assertEquals(3, store.all().size());

        store.put(task("newer", "working"));
        store.put(task("newest", "working"));
        assertEquals(4, store.all().size(), "beyond the limit only while nothing else has ended");
        assertTrue(store.find("done-2").isEmpty());
    }
}
