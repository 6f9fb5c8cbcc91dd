package cn.agentao.agent.core.repository;

import cn.agentao.agent.store.postgres.PostgresSessionRepository;
import cn.agentao.agent.store.postgres.PostgresStoreConfig;
import cn.agentao.agent.testing.PostgresServer;
import org.junit.jupiter.api.AfterEach;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The PostgreSQL store shows the behaviour every repository must, against a real server ({@link PostgresServer}). */
class PostgresSessionRepositoryIT extends SessionRepositoryContract {
    private PostgresStoreConfig db;
    private PostgresSessionRepository repo;
    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path checkpoints;

    @Override
    protected SessionRepository repository(Clock clock) {
        db = PostgresServer.shared().freshDatabase();
        repo = new PostgresSessionRepository(db, clock, checkpoints);
        return repo;
    }

    @AfterEach
    void closeRepository() {
        if (repo != null) repo.close();
    }

    /** Another connection takes the session's lease; closing terminates its server process (as a crash would). */
    @Override
    protected AutoCloseable leaseElsewhere(String sessionId) throws Exception {
        PostgresSessionRepository other = new PostgresSessionRepository(db);
        SessionLease lease = other.lease(sessionId);
        assertTrue(lease.held());
        return () -> {
            try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), "");
                 PreparedStatement ps = c.prepareStatement("select pg_terminate_backend(pid) from pg_locks"
                         + " where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())")) {
                ps.setQueryTimeout(60);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) { /* each terminated */ }
                }
            }
            other.close();
        };
    }
}
