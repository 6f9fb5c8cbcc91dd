package cn.agentao.agent.door.a2a;

import cn.agentao.agent.store.postgres.PostgresSessionRepository;
import cn.agentao.agent.store.postgres.PostgresStoreConfig;
import cn.agentao.agent.testing.PostgresServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The A2A task table on a real PostgreSQL ({@link PostgresServer}): what one instance saves another reads, a cancel
 * request reaches whoever polls for it, push configurations are kept per task, and only old ended tasks expire.
 */
class PostgresTaskRepositoryIT {
    PostgresStoreConfig db;
    PostgresSessionRepository a;
    PostgresSessionRepository b;
    TaskRepository onA;
    TaskRepository onB;

    @BeforeEach
    void open() {
        db = PostgresServer.shared().freshDatabase();
        a = new PostgresSessionRepository(db);
        b = new PostgresSessionRepository(db);
        assertTrue(a.shared(), "several instances share a PostgreSQL store");
        onA = new PostgresTaskRepository(a);
        onB = new PostgresTaskRepository(b);
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void whatOneInstanceSavesTheOtherReadsAsItIsNow() {
        assertTrue(onB.find("t1").isEmpty());
        onA.save("t1", "c1", "working", "{\"id\":\"t1\",\"v\":1}");
        TaskRepository.StoredTask first = onB.find("t1").orElseThrow();
        assertEquals("c1", first.contextId());
        assertEquals("working", first.state());
        assertEquals("{\"id\":\"t1\",\"v\":1}", first.body());
        assertFalse(first.cancelRequested());

        onA.save("t1", "c1", "completed", "{\"id\":\"t1\",\"v\":2}");
        TaskRepository.StoredTask second = onB.find("t1").orElseThrow();
        assertEquals("completed", second.state());
        assertEquals("{\"id\":\"t1\",\"v\":2}", second.body(), "the latest document replaces the earlier");
        assertFalse(second.updatedAt().isBefore(first.updatedAt()));
    }

    @Test
    void aCancelRequestReachesTheInstanceThatPollsForIt() {
        onA.save("run1", "c", "working", "{}");
        onA.save("run2", "c", "working", "{}");
        assertEquals(Set.of(), onA.cancelRequested(List.of("run1", "run2")));
        assertTrue(onB.requestCancel("run2"));
        assertFalse(onB.requestCancel("no-such-task"));
        assertEquals(Set.of("run2"), onA.cancelRequested(List.of("run1", "run2")));
        assertEquals(Set.of(), onA.cancelRequested(List.of()));
        onA.save("run2", "c", "canceled", "{}");
        assertTrue(onA.find("run2").orElseThrow().cancelRequested(), "the request stays recorded");
    }

    @Test
    void pushConfigurationsAreKeptPerTaskInTheOrderTheyWereSet() {
        onA.save("t", "c", "working", "{}");
        onA.save("u", "c", "working", "{}");
        onA.putPushConfig("t", "first", "{\"url\":\"https://a.example/1\"}");
        onB.putPushConfig("t", "second", "{\"url\":\"https://a.example/2\"}");
        onB.putPushConfig("t", "first", "{\"url\":\"https://a.example/1b\"}");
        assertEquals(Map.of(), onA.pushConfigs("u"));
        Map<String, String> configs = onA.pushConfigs("t");
        assertEquals(List.of("first", "second"), List.copyOf(configs.keySet()));
        assertEquals("{\"url\":\"https://a.example/1b\"}", configs.get("first"), "setting an id again replaces it");
        assertTrue(onA.deletePushConfig("t", "first"));
        assertFalse(onA.deletePushConfig("t", "first"));
        assertEquals(List.of("second"), List.copyOf(onB.pushConfigs("t").keySet()));
    }

    @Test
    void onlyEndedTasksOlderThanTheLimitExpireWithTheirPushConfigurations() throws Exception {
        onA.save("old-done", "c", "completed", "{}");
        onA.putPushConfig("old-done", "h", "{}");
        onA.save("old-running", "c", "working", "{}");
        onA.save("new-done", "c", "completed", "{}");
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), "");
             Statement s = c.createStatement()) {
            s.executeUpdate("update agent_tasks set updated_at = now() - interval '30 days' where id like 'old-%'");
        }
        int n = onB.expire(List.of("completed", "canceled", "failed", "rejected"), Instant.now().minusSeconds(7 * 24 * 3600));
        assertEquals(1, n);
        assertTrue(onA.find("old-done").isEmpty());
        assertEquals(Map.of(), onA.pushConfigs("old-done"));
        assertTrue(onA.find("old-running").isPresent(), "a task that has not ended is never expired");
        assertTrue(onA.find("new-done").isPresent());
    }
}
