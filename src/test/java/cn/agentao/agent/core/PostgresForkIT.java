package cn.agentao.agent.core;

import cn.agentao.agent.cli.ToolCalls;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.core.repository.StoredSession;
import cn.agentao.agent.store.postgres.PostgresSessionRepository;
import cn.agentao.agent.store.postgres.PostgresStoreConfig;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.PostgresServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A fork on PostgreSQL takes its parent's history in one transaction: when the database refuses a record midway
 * (a trigger here, as a full disk or a constraint would), nothing of the fork is left, and the next write starts
 * cleanly. Against a real server ({@link PostgresServer}).
 */
class PostgresForkIT {
    @TempDir
    Path dir;
    PostgresStoreConfig db;
    PostgresSessionRepository repo;

    @BeforeEach
    void start() {
        db = PostgresServer.shared().freshDatabase();
        repo = new PostgresSessionRepository(db);
        repo.exists("none"); // the tables are made on first use
    }

    @AfterEach
    void stop() {
        repo.close();
    }

    /** From now on the database refuses the {@code n}th record of every session but {@code spared}. */
    void refuseRecord(int n, String spared) throws Exception {
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), ""); Statement s = c.createStatement()) {
            s.execute("create function refuse() returns trigger language plpgsql as $$ begin"
                    + " if new.seq = " + n + " and new.session_id <> '" + spared + "' then raise exception 'disk full (simulated)';"
                    + " end if; return new; end $$");
            s.execute("create trigger refuse before insert on agent_records for each row execute function refuse()");
        }
    }

    long rows(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), ""); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static ObjectNode record(String type, String text) {
        return Json.object().put("seq", 99).put("ts", "2020-01-01T00:00:00Z").put("type", type).put("text", text);
    }

    @Test
    void copiesAreStoredAllOrNone() throws Exception {
        List<ObjectNode> parent = List.of(record("user_message", "one"), record("assistant_message", "two"),
                record("user_message", "three"), record("assistant_message", "four"));
        refuseRecord(3, "none");
        try (SessionLease lease = repo.create("fork-1", dir, null)) {
            SessionStoreException e = assertThrows(SessionStoreException.class, () -> lease.appendCopies(parent));
            assertTrue(e.getMessage().contains("disk full (simulated)"), e.getMessage());
            assertEquals(0, lease.lastSeq());
            assertEquals(0, repo.read("fork-1").records().size(), "no half fork: the first two copies are not there");
            assertEquals(0, rows("select records from agent_sessions where id = 'fork-1'"), "the listing agrees");
            assertEquals(1, lease.append("user_message", Json.object().put("text", "after")), "the next write starts cleanly");
        }
        try (SessionLease lease = repo.create("fork-2", dir, null)) {
            lease.appendCopies(parent.subList(0, 2));
        }
        StoredSession two = repo.read("fork-2");
        assertEquals(List.of(1L, 2L), two.records().stream().map(r -> r.path("seq").asLong()).toList());
        assertEquals("two", two.records().get(1).path("text").asText());
        assertEquals(2, rows("select records from agent_sessions where id = 'fork-2'"));
    }

    @Test
    void aForkThatFailsMidwayLeavesNothingBehind() throws Exception {
        FakeModelServer model = FakeModelServer.start().whenEmptyFail();
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("HOME", dir.resolve("home").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("AGENT_SANDBOX", "none");
        Path configDir = dir.resolve("config/agent");
        SessionService sessions = new SessionService(new Engine(cn.agentao.agent.config.AgentConfig.load(env), ToolCalls.create(cn.agentao.agent.config.AgentConfig.load(env))), repo);
        Path ws = Files.createDirectories(dir.resolve("ws"));
        try {
            Session parent = sessions.create(SessionService.Spec.of(ws), id -> new FakeHost());
            model.enqueue(Script.textReply("The answer is 42."), Script.textReply("Still 42."));
            parent.prompt(List.of(ContentBlock.text("What is the answer?")), Cancellation.NONE);
            parent.prompt(List.of(ContentBlock.text("Sure?")), Cancellation.NONE);
            long parentRecords = repo.read(parent.id()).records().size();
            assertTrue(parentRecords >= 4, "the parent has a history to copy: " + parentRecords);

            refuseRecord(3, parent.id());
            assertThrows(CoreException.class, () -> sessions.fork(parent.id(), SessionService.Spec.of(ws), id -> new FakeHost()));
            assertEquals(0, rows("select count(*) from agent_records where session_id <> '" + parent.id() + "'"),
                    "no record of a half fork");
            assertEquals(List.of(parent.id()), repo.list(null, null, 10).items().stream().map(s -> s.sessionId()).toList(),
                    "no half fork is listed");
            assertEquals(parentRecords, repo.read(parent.id()).records().size(), "the parent is untouched");
        } finally {
            sessions.close();
            model.close();
        }
    }
}
