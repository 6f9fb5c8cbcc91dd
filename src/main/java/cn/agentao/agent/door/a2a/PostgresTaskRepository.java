package cn.agentao.agent.door.a2a;

import cn.agentao.agent.store.postgres.PostgresSessionRepository;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Tasks in PostgreSQL ({@code agent_tasks}, {@code agent_task_push}: schema migration 2), through the session
 * repository's connection pool; each call is one short statement.
 */
final class PostgresTaskRepository implements TaskRepository {
    private final PostgresSessionRepository sessions;

    PostgresTaskRepository(PostgresSessionRepository sessions) {
        this.sessions = sessions;
    }

    @FunctionalInterface
    private interface Call<T> {
        T on(Connection c) throws SQLException;
    }

    /** Runs one insert, update or delete with text parameters; how many rows it changed. */
    private int update(String what, String sql, String... params) {
        return call(what, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < params.length; i++) ps.setString(i + 1, params[i]);
                return ps.executeUpdate();
            }
        });
    }

    private <T> T call(String what, Call<T> call) {
        try (Connection c = sessions.connection()) {
            return call.on(c);
        } catch (SQLException | RuntimeException e) {
            throw sessions.failure(what, e);
        }
    }

    @Override
    public void save(String id, String contextId, String state, String body) {
        update("save task " + id, "insert into agent_tasks (id, context_id, state, body) values (?, ?, ?, ?)"
                + " on conflict (id) do update set state = excluded.state, body = excluded.body, updated_at = now()", id, contextId, state, body);
    }

    @Override
    public Optional<StoredTask> find(String id) {
        return call("read task " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement("select context_id, state, body, cancel_requested, updated_at"
                    + " from agent_tasks where id = ?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) return Optional.empty();
                    return Optional.of(new StoredTask(id, rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4),
                            rs.getTimestamp(5).toInstant()));
                }
            }
        });
    }

    @Override
    public List<StoredTask> ownedBy(String owner) {
        return call("list the tasks of a caller", c -> {
            try (PreparedStatement ps = c.prepareStatement("select id, context_id, state, body, cancel_requested, updated_at"
                    + " from agent_tasks where body::jsonb ->> 'owner' = ? order by updated_at desc, id")) {
                ps.setString(1, owner);
                List<StoredTask> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new StoredTask(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getBoolean(5),
                                rs.getTimestamp(6).toInstant()));
                    }
                }
                return out;
            }
        });
    }

    @Override
    public boolean requestCancel(String id) {
        return update("cancel task " + id, "update agent_tasks set cancel_requested = true where id = ?", id) > 0;
    }

    @Override
    public Set<String> cancelRequested(Collection<String> ids) {
        if (ids.isEmpty()) return Set.of();
        return call("read cancel requests", c -> {
            try (PreparedStatement ps = c.prepareStatement("select id from agent_tasks where cancel_requested and id = any(?)")) {
                Array array = c.createArrayOf("text", ids.toArray());
                ps.setArray(1, array);
                Set<String> out = new HashSet<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) out.add(rs.getString(1));
                }
                return out;
            }
        });
    }

    @Override
    public Map<String, String> pushConfigs(String taskId) {
        return call("read the push configurations of task " + taskId, c -> {
            try (PreparedStatement ps = c.prepareStatement("select config_id, body from agent_task_push where task_id = ?"
                    + " order by created_at, config_id")) {
                ps.setString(1, taskId);
                Map<String, String> out = new LinkedHashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) out.put(rs.getString(1), rs.getString(2));
                }
                return out;
            }
        });
    }

    @Override
    public void putPushConfig(String taskId, String configId, String body) {
        update("save a push configuration of task " + taskId, "insert into agent_task_push (task_id, config_id, body) values (?, ?, ?)"
                + " on conflict (task_id, config_id) do update set body = excluded.body", taskId, configId, body);
    }

    @Override
    public boolean deletePushConfig(String taskId, String configId) {
        return update("delete a push configuration of task " + taskId, "delete from agent_task_push where task_id = ? and config_id = ?",
                taskId, configId) > 0;
    }

    @Override
    public int expire(Collection<String> states, Instant before) {
        if (states.isEmpty()) return 0;
        return call("expire old tasks", c -> {
            try (PreparedStatement ps = c.prepareStatement("delete from agent_tasks where state = any(?) and updated_at < ?")) {
                ps.setArray(1, c.createArrayOf("text", states.toArray()));
                ps.setTimestamp(2, Timestamp.from(before));
                return ps.executeUpdate();
            }
        });
    }
}
