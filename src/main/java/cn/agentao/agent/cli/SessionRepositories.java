package cn.agentao.agent.cli;

import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.postgres.PostgresStoreConfig;

import java.nio.file.Path;
import java.util.Map;

/**
 * Which session repository the process uses, for every door and {@code agent sessions}: the file store, unless
 * {@code AGENT_STORE=postgres://USER@HOST:PORT/DB} chooses PostgreSQL (password from {@code PGPASSWORD} or the
 * variable {@code AGENT_STORE_PASSWORD_ENV} names). An explicit {@code --sessions-dir} keeps the file store.
 */
public final class SessionRepositories {
    private SessionRepositories() {}

    /** @param sessionsDir an explicit sessions directory (nullable) */
    public static SessionRepository open(Map<String, String> env, Path sessionsDir) {
        String store = env.get(PostgresStoreConfig.STORE_ENV);
        if (sessionsDir == null && store != null && !store.isBlank()) {
            if (!PostgresStoreConfig.isPostgres(store)) {
                throw new IllegalArgumentException(PostgresStoreConfig.STORE_ENV + " must be a postgres://USER@HOST:PORT/DB"
                        + " address; unset it to keep sessions in files");
            }
            return postgres(PostgresStoreConfig.parse(store, env, env.get(PostgresStoreConfig.PASSWORD_ENV_ENV)));
        }
        return new SessionStore(sessionsDir != null ? sessionsDir : SessionStore.defaultDirectory(env));
    }

    /** Its own method so that the driver and pool classes load only when PostgreSQL is chosen. */
    private static SessionRepository postgres(PostgresStoreConfig config) {
        return new cn.agentao.agent.store.postgres.PostgresSessionRepository(config);
    }
}
