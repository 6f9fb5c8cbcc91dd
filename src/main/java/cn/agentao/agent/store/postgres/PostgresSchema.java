package cn.agentao.agent.store.postgres;

import cn.agentao.agent.core.repository.SessionStoreException;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The store's tables, created and migrated by the agent: each migration is applied once, in order, and recorded
 * in {@code agent_schema_version}. Instances starting together serialize on a transaction-scoped advisory lock.
 * A database migrated by a newer agent (a version this code does not know) is refused, not touched.
 */
final class PostgresSchema {
    /** Migration N is {@code MIGRATIONS.get(N - 1)}; append new ones, never edit old ones. */
    static final List<String> MIGRATIONS = List.of("""
            create table agent_sessions (
                id text primary key,
                header text not null,
                cwd text,
                created_at timestamptz,
                updated_at timestamptz not null,
                title text,
                records bigint not null default 0,
                last_seq bigint not null default 0
            );
            create index agent_sessions_by_update on agent_sessions (updated_at desc, id);
            create index agent_sessions_by_cwd on agent_sessions (cwd, updated_at desc, id);
            create table agent_records (
                session_id text not null references agent_sessions (id) on delete cascade,
                seq bigint not null,
                body text not null,
                primary key (session_id, seq)
            );
            """, """
            create table agent_tasks (
                id text primary key,
                context_id text not null,
                state text not null,
                body text not null,
                cancel_requested boolean not null default false,
                created_at timestamptz not null default now(),
                updated_at timestamptz not null default now()
            );
            create index agent_tasks_by_update on agent_tasks (updated_at);
            create table agent_task_push (
                task_id text not null references agent_tasks (id) on delete cascade,
                config_id text not null,
                body text not null,
                created_at timestamptz not null default now(),
                primary key (task_id, config_id)
            );
            """);
    private static final long MIGRATION_LOCK = 0x6167656e74L; // "agent"

    private PostgresSchema() {}

    /** Brings the database up to {@link #MIGRATIONS}' latest version; returns the version it is at. */
    static int migrate(Connection c, String where) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("select pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
            s.execute("create table if not exists agent_schema_version (version int primary key, applied_at timestamptz not null default now())");
            int current;
            try (ResultSet rs = s.executeQuery("select coalesce(max(version), 0) from agent_schema_version")) {
                rs.next();
                current = rs.getInt(1);
            }
            if (current > MIGRATIONS.size()) {
                throw new SessionStoreException("the session store " + where + " has schema version " + current
                        + ", newer than this agent supports (" + MIGRATIONS.size() + "); upgrade the agent");
            }
            for (int v = current + 1; v <= MIGRATIONS.size(); v++) {
                s.execute(MIGRATIONS.get(v - 1));
                s.execute("insert into agent_schema_version (version) values (" + v + ")");
            }
            c.commit();
            return MIGRATIONS.size();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }
}
