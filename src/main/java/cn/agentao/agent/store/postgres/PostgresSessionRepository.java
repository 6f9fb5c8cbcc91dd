package cn.agentao.agent.store.postgres;

import cn.agentao.agent.core.repository.AmbiguousSessionIdException;
import cn.agentao.agent.core.repository.CheckpointStore;
import cn.agentao.agent.core.repository.Page;
import cn.agentao.agent.core.repository.PruneResult;
import cn.agentao.agent.core.repository.PruneRule;
import cn.agentao.agent.core.repository.SessionBusyException;
import cn.agentao.agent.core.repository.SessionCorruptException;
import cn.agentao.agent.core.repository.SessionExistsException;
import cn.agentao.agent.core.repository.SessionHeader;
import cn.agentao.agent.core.repository.SessionHeading;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionNotFoundException;
import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.core.repository.StoreUnavailableException;
import cn.agentao.agent.store.ListCursor;
import cn.agentao.agent.store.SessionFiles;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Sessions in PostgreSQL: a row per session (its header and a summary kept up to date by each append) and a row per
 * record (the record's JSON as stored, so unknown types come back unchanged). Short operations use a small HikariCP
 * pool; a lease is a session-level advisory lock on a connection of its own, through which its appends go, so it
 * ends when it is closed or when that connection ends (the holding process died, the database restarted).
 * Nothing connects until the first use; the schema is created and migrated then ({@link PostgresSchema}).
 */
public final class PostgresSessionRepository implements SessionRepository, AutoCloseable {
    private static final int FETCH = 500;
    private final PostgresStoreConfig config;
    private final Clock clock;
    private HikariDataSource pool;
    private HikariDataSource leasePool;
    /** At most this many leases (turns running at once) per instance. */
    private static final int LEASE_CONNECTIONS = 256;
    /** Where sessions' checkpoints are kept, on this machine's disk (null: none kept). */
    private final Path checkpoints;

    public PostgresSessionRepository(PostgresStoreConfig config, Clock clock) {
        this(config, clock, null);
    }

    /** @param checkpoints the directory of the sessions' checkpoints on this machine (nullable: none kept) */
    public PostgresSessionRepository(PostgresStoreConfig config, Clock clock, Path checkpoints) {
        this.config = config;
        this.clock = clock;
        this.checkpoints = checkpoints;
    }

    public PostgresSessionRepository(PostgresStoreConfig config) {
        this(config, Clock.systemUTC());
    }

    /** {@code <checkpoints>/<id>} on this machine: checkpoints stay on the disk of the instance that ran the turn. */
    @Override
    public Optional<Path> checkpointDirectory(String sessionId) {
        if (checkpoints == null || !SessionFiles.isValidId(sessionId)) return Optional.empty();
        return Optional.of(checkpoints.resolve(sessionId));
    }

    private synchronized HikariDataSource pool() {
        if (pool != null) return pool;
        HikariConfig hc = new HikariConfig();
        hc.setPoolName("agent-store");
        hc.setJdbcUrl(config.jdbcUrl());
        hc.setUsername(config.user());
        if (config.password() != null) hc.setPassword(config.password());
        hc.setMaximumPoolSize(8);
        hc.setMinimumIdle(1);
        hc.setConnectionTimeout(10_000);
        hc.setInitializationFailTimeout(1); // one attempt: a store that cannot be reached says why at once
        hc.addDataSourceProperty("tcpKeepAlive", "true");
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(hc);
        } catch (RuntimeException e) {
            throw new StoreUnavailableException("cannot use the session store " + config.display() + ": "
                    + PostgresErrors.connecting(config, e), e);
        }
        try (Connection c = ds.getConnection()) {
            PostgresSchema.migrate(c, config.display());
        } catch (SQLException | RuntimeException e) {
            ds.close();
            throw new StoreUnavailableException(failure("open the session store", e).getMessage(), e);
        }
        pool = ds;
        return ds;
    }

    /**
     * The leases' own pool: a lease lives for one turn, so its connection is reused by later turns instead of being
     * opened each time; as many as turns run at once (PostgreSQL's {@code max_connections} is the real bound).
     */
    private synchronized HikariDataSource leasePool() {
        if (leasePool != null) return leasePool;
        pool(); // the schema is there before any lease
        HikariConfig hc = new HikariConfig();
        hc.setPoolName("agent-leases");
        hc.setJdbcUrl(config.jdbcUrl());
        hc.setUsername(config.user());
        if (config.password() != null) hc.setPassword(config.password());
        hc.setMaximumPoolSize(LEASE_CONNECTIONS);
        hc.setMinimumIdle(0);
        hc.setIdleTimeout(60_000);
        hc.setConnectionTimeout(5_000); // a turn waits this long for an unreachable database, then runs unsaved
        hc.setInitializationFailTimeout(-1);
        hc.addDataSourceProperty("tcpKeepAlive", "true");
        leasePool = new HikariDataSource(hc);
        return leasePool;
    }

    private Connection leaseConnection() throws SQLException {
        return leasePool().getConnection();
    }

    /**
     * Gives a lease's connection back to the pool without its lock: unlocked first, or, if that fails, dropped from
     * the pool (the lock ends with the connection), so that a pooled connection never holds a session.
     */
    void giveBack(Connection c) {
        if (c == null) return;
        try {
            if (!c.getAutoCommit()) c.rollback();
            // released here, not left to the server's end of the connection, so the session can be leased at once
            try (PreparedStatement ps = c.prepareStatement("select pg_advisory_unlock_all()")) {
                ps.execute();
            }
            c.close();
        } catch (SQLException | RuntimeException e) {
            HikariDataSource p = leasePool;
            if (p != null) p.evictConnection(c);
            closeQuietly(c);
        }
    }

    @Override
    public SessionLease create(String sessionId, Path cwd, ObjectNode headerExtra) {
        SessionFiles.requireValidId(sessionId);
        Instant now = now();
        SessionHeader header = SessionHeader.create(sessionId, cwd.toAbsolutePath(), now, headerExtra);
        Connection c = null;
        try {
            c = leaseConnection();
            if (!tryLock(c, sessionId)) throw exists(sessionId) ? new SessionExistsException(sessionId) : new SessionBusyException(sessionId);
            try (PreparedStatement ps = c.prepareStatement("insert into agent_sessions (id, header, cwd, created_at, updated_at)"
                    + " values (?, ?, ?, ?, ?) on conflict (id) do nothing")) {
                ps.setString(1, sessionId);
                ps.setString(2, Json.mapper().writeValueAsString(header.json()));
                ps.setString(3, header.cwd().toString());
                ps.setTimestamp(4, Timestamp.from(now));
                ps.setTimestamp(5, Timestamp.from(now));
                if (ps.executeUpdate() == 0) throw new SessionExistsException(sessionId);
            }
            return new PostgresLease(sessionId, c, () -> relock(sessionId), this::giveBack, clock, 0, config.display());
        } catch (SQLException | IOException | RuntimeException e) {
            giveBack(c);
            if (e instanceof SessionStoreException s) throw s;
            if (e instanceof IllegalArgumentException i) throw i;
            throw failure("create session " + sessionId, e);
        }
    }

    /** Several instances serve sessions from one database: the core leases a session per turn. */
    @Override
    public boolean shared() {
        return true;
    }

    /** A connection of the pool (the schema migrated), for the tables a door keeps beside the sessions (A2A's tasks). */
    public Connection connection() throws SQLException {
        return pool().getConnection();
    }

    @Override
    public SessionLease lease(String sessionId) {
        Connection c = null;
        try {
            c = leaseConnection();
            if (!tryLock(c, sessionId)) {
                if (!exists(sessionId)) throw SessionNotFoundException.of(sessionId);
                throw new SessionBusyException(sessionId);
            }
            try (PreparedStatement ps = c.prepareStatement("select header, last_seq from agent_sessions where id = ?")) {
                ps.setString(1, sessionId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) throw SessionNotFoundException.of(sessionId);
                    parseHeader(sessionId, rs.getString(1));
                    return new PostgresLease(sessionId, c, () -> relock(sessionId), this::giveBack, clock, rs.getLong(2), config.display());
                }
            }
        } catch (SQLException | RuntimeException e) {
            giveBack(c);
            if (e instanceof SessionStoreException s) throw s;
            throw failure("lease session " + sessionId, e);
        }
    }

    private Connection relock(String sessionId) throws SQLException {
        Connection c = leaseConnection();
        if (tryLock(c, sessionId)) return c;
        giveBack(c);
        return null;
    }

    @Override
    public SessionHeading scan(String sessionId, Consumer<ObjectNode> each) {
        try (Connection c = pool().getConnection()) {
            c.setAutoCommit(false); // a cursor: records are fetched a batch at a time, never all at once
            try {
                SessionHeader header;
                try (PreparedStatement ps = c.prepareStatement("select header from agent_sessions where id = ?")) {
                    ps.setString(1, sessionId);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) throw SessionNotFoundException.of(sessionId);
                        header = parseHeader(sessionId, rs.getString(1));
                    }
                }
                List<String> warnings = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement("select seq, body from agent_records where session_id = ? order by seq")) {
                    ps.setFetchSize(FETCH);
                    ps.setString(1, sessionId);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            JsonNode record = readJson(rs.getString(2));
                            if (record instanceof ObjectNode o) each.accept(o);
                            else warnings.add("session " + sessionId + ": record " + rs.getLong(1) + " is not readable JSON; skipped");
                        }
                    }
                }
                return new SessionHeading(header, warnings);
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            throw failure("read session " + sessionId, e);
        }
    }

    @Override
    public Page<SessionSummary> list(Path cwdFilter, String cursor, int pageSize) {
        if (pageSize < 1) throw new IllegalArgumentException("page size must be >= 1: " + pageSize);
        ListCursor after = cursor == null ? null : ListCursor.decode(cursor);
        List<SessionSummary> items = summaries(cwdFilter, after, pageSize + 1);
        if (items.size() <= pageSize) return new Page<>(items, null);
        items = items.subList(0, pageSize);
        return new Page<>(items, ListCursor.after(items.getLast()).encode());
    }

    /** Summaries newest first, after {@code after} (nullable), at most {@code limit} (0: all). */
    private List<SessionSummary> summaries(Path cwdFilter, ListCursor after, int limit) {
        StringBuilder sql = new StringBuilder("select id, header, title, updated_at, records from agent_sessions where true");
        if (cwdFilter != null) sql.append(" and cwd = ?");
        if (after != null) sql.append(" and (updated_at < ? or (updated_at = ? and id > ?))");
        sql.append(" order by updated_at desc, id");
        if (limit > 0) sql.append(" limit ").append(limit);
        try (Connection c = pool().getConnection(); PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int i = 1;
            if (cwdFilter != null) ps.setString(i++, cwdFilter.toAbsolutePath().toString());
            if (after != null) {
                ps.setTimestamp(i++, Timestamp.from(after.updatedAt()));
                ps.setTimestamp(i++, Timestamp.from(after.updatedAt()));
                ps.setString(i, after.sessionId());
            }
            List<SessionSummary> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(summary(rs));
            }
            return out;
        } catch (SQLException e) {
            throw failure("list sessions", e);
        }
    }

    private static SessionSummary summary(ResultSet rs) throws SQLException {
        String id = rs.getString(1);
        Instant updated = rs.getTimestamp(4).toInstant();
        JsonNode json = readJson(rs.getString(2));
        try {
            SessionHeader header = SessionHeader.parse(id, json);
            return new SessionSummary(id, header.cwd(), rs.getString(3), header.createdAt(), updated, rs.getLong(5), null);
        } catch (SessionCorruptException e) {
            return new SessionSummary(id, json == null ? null : SessionHeader.lenientCwd(json), null,
                    json == null ? null : SessionHeader.lenientCreatedAt(json), updated, rs.getLong(5), e.getMessage());
        }
    }

    @Override
    public Optional<String> latestFor(Path cwd) {
        return summaries(cwd, null, 0).stream().filter(SessionSummary::readable).map(SessionSummary::sessionId).findFirst();
    }

    @Override
    public String resolvePrefix(String idOrPrefix) {
        if (idOrPrefix == null || idOrPrefix.isBlank()) throw new IllegalArgumentException("empty session id");
        if (exists(idOrPrefix)) return idOrPrefix;
        List<String> ids = new ArrayList<>();
        try (Connection c = pool().getConnection();
             PreparedStatement ps = c.prepareStatement("select id from agent_sessions where starts_with(id, ?) order by id limit 100")) {
            ps.setString(1, idOrPrefix);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) ids.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw failure("look up session " + idOrPrefix, e);
        }
        if (ids.isEmpty()) throw new SessionNotFoundException(idOrPrefix, "no stored session id starts with " + idOrPrefix);
        if (ids.size() > 1) throw new AmbiguousSessionIdException(idOrPrefix, ids);
        return ids.getFirst();
    }

    @Override
    public boolean exists(String sessionId) {
        try (Connection c = pool().getConnection();
             PreparedStatement ps = c.prepareStatement("select 1 from agent_sessions where id = ?")) {
            ps.setString(1, sessionId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw failure("look up session " + sessionId, e);
        }
    }

    @Override
    public boolean isLive(String sessionId) {
        long key = lockKey(sessionId);
        try (Connection c = pool().getConnection();
             PreparedStatement ps = c.prepareStatement("select 1 from pg_locks where locktype = 'advisory' and objsubid = 1"
                     + " and database = (select oid from pg_database where datname = current_database())"
                     + " and classid::bigint = ? and objid::bigint = ? and granted")) {
            ps.setLong(1, key >>> 32);
            ps.setLong(2, key & 0xffffffffL);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw failure("look up session " + sessionId, e);
        }
    }

    @Override
    public boolean delete(String sessionId) {
        try (Connection c = pool().getConnection()) {
            return deleteUnlessLeased(c, sessionId);
        } catch (SQLException e) {
            throw failure("delete session " + sessionId, e);
        }
    }

    /** Deletes under the session's lock (so never under a lease); false if there was no such session. */
    private boolean deleteUnlessLeased(Connection c, String sessionId) throws SQLException {
        if (!tryLock(c, sessionId)) {
            if (!exists(sessionId)) return false;
            throw new SessionBusyException(sessionId);
        }
        try (PreparedStatement ps = c.prepareStatement("delete from agent_sessions where id = ?")) {
            ps.setString(1, sessionId);
            boolean deleted = ps.executeUpdate() > 0;
            if (deleted) deleteCheckpoints(sessionId);
            return deleted;
        } finally {
            try (PreparedStatement ps = c.prepareStatement("select pg_advisory_unlock(?)")) {
                ps.setLong(1, lockKey(sessionId));
                ps.execute();
            }
        }
    }

    private void deleteCheckpoints(String sessionId) {
        Optional<Path> dir = checkpointDirectory(sessionId);
        if (dir.isEmpty()) return;
        try {
            CheckpointStore.delete(dir.get());
        } catch (IOException e) { // the session is gone; what is left of its checkpoints is only disk space
            org.slf4j.LoggerFactory.getLogger(PostgresSessionRepository.class).warn(
                    "session {} was deleted, but not its checkpoints in {}: {}", sessionId, dir.get(), e.toString());
        }
    }

    @Override
    public PruneResult prune(PruneRule rule) {
        PruneResult plan = planPrune(rule);
        List<SessionSummary> removed = new ArrayList<>();
        List<SessionSummary> skipped = new ArrayList<>(plan.skippedLive());
        try (Connection c = pool().getConnection()) {
            for (SessionSummary s : plan.removed()) {
                try {
                    if (deleteUnlessLeased(c, s.sessionId())) removed.add(s);
                } catch (SessionBusyException e) {
                    skipped.add(s);
                }
            }
        } catch (SQLException e) {
            throw failure("prune sessions", e);
        }
        return new PruneResult(removed, skipped);
    }

    @Override
    public PruneResult planPrune(PruneRule rule) {
        List<SessionSummary> readable = summaries(null, null, 0).stream().filter(SessionSummary::readable).toList();
        List<SessionSummary> selected = switch (rule) {
            case PruneRule.KeepNewest k -> readable.subList(Math.min(k.count(), readable.size()), readable.size());
            case PruneRule.OlderThan o -> {
                Instant cutoff = clock.instant().minus(o.age());
                yield readable.stream().filter(s -> s.updatedAt().isBefore(cutoff)).toList();
            }
        };
        List<SessionSummary> removed = new ArrayList<>();
        List<SessionSummary> live = new ArrayList<>();
        for (SessionSummary s : selected) (isLive(s.sessionId()) ? live : removed).add(s);
        return new PruneResult(removed, live);
    }

    @Override
    public void exportLog(String sessionId, OutputStream out) throws IOException {
        try (Connection c = pool().getConnection()) {
            c.setAutoCommit(false);
            try {
                try (PreparedStatement ps = c.prepareStatement("select header from agent_sessions where id = ?")) {
                    ps.setString(1, sessionId);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) throw SessionNotFoundException.of(sessionId);
                        writeLine(out, rs.getString(1));
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("select body from agent_records where session_id = ? order by seq")) {
                    ps.setFetchSize(FETCH);
                    ps.setString(1, sessionId);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) writeLine(out, rs.getString(1));
                    }
                }
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            throw failure("export session " + sessionId, e);
        }
    }

    private static void writeLine(OutputStream out, String json) throws IOException {
        out.write(json.getBytes(StandardCharsets.UTF_8));
        out.write('\n');
    }

    @Override
    public String location() {
        return config.display();
    }

    @Override
    public String relocateHint() {
        return "check that PostgreSQL at " + config.host() + ":" + config.port() + " is running and reachable, or choose"
                + " another store with --store (or " + PostgresStoreConfig.STORE_ENV + "; unset: files)";
    }

    @Override
    public synchronized void close() {
        if (pool != null) pool.close();
        pool = null;
        if (leasePool != null) leasePool.close();
        leasePool = null;
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS); // PostgreSQL keeps microseconds
    }

    static boolean tryLock(Connection c, String sessionId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select pg_try_advisory_lock(?)")) {
            ps.setLong(1, lockKey(sessionId));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** The advisory lock key of a session: the first 8 bytes of SHA-256 over its id. */
    static long lockKey(String sessionId) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(("agent-session:" + sessionId).getBytes(StandardCharsets.UTF_8));
            long key = 0;
            for (int i = 0; i < 8; i++) key = key << 8 | (d[i] & 0xff);
            return key;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SessionHeader parseHeader(String sessionId, String json) {
        return SessionHeader.parse(sessionId, readJson(json));
    }

    private static JsonNode readJson(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (IOException e) {
            return null;
        }
    }

    /** {@code e} as the failure to report: what was being done, in the store named by its address (never a password). */
    public SessionStoreException failure(String what, Exception e) {
        if (e instanceof SessionStoreException s) return s;
        return new SessionStoreException("could not " + what + " in the session store " + config.display() + ": "
                + e.getMessage(), e);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) return;
        try {
            c.close();
        } catch (Exception ignored) {
            // the connection is gone either way
        }
    }
}
