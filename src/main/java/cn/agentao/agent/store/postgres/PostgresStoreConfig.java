package cn.agentao.agent.store.postgres;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;

/**
 * Where a PostgreSQL store is: {@code postgres://USER@HOST:PORT/DB} (from {@code AGENT_STORE} or
 * {@code --store}); the password comes from {@code PGPASSWORD} or the variable {@code AGENT_STORE_PASSWORD_ENV}
 * names, never from the address (so the address can be shown and logged).
 */
public record PostgresStoreConfig(String user, String host, int port, String database, String password) {
    public static final String STORE_ENV = cn.agentao.agent.config.StoreSettings.STORE_ENV;
    public static final String PASSWORD_ENV_ENV = cn.agentao.agent.config.StoreSettings.PASSWORD_ENV_ENV;
    public static final String FORM = "postgres://USER@HOST:PORT/DB";

    /** Whether {@code store} names a PostgreSQL store (else it is the file store's). */
    public static boolean isPostgres(String store) {
        return store != null && (store.startsWith("postgres://") || store.startsWith("postgresql://"));
    }

    /** Parses {@code url}; {@code passwordEnv} (nullable) names the variable holding the password. */
    public static PostgresStoreConfig parse(String url, Map<String, String> env, String passwordEnv) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) { // not echoed: it might hold a password
            throw new IllegalArgumentException("invalid store address: use " + FORM);
        }
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null && userInfo.contains(":")) {
            throw new IllegalArgumentException("the store address must not carry a password: put it in PGPASSWORD"
                    + " (or a variable named by --store-password-env) and use " + FORM);
        }
        String db = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
        if (!isPostgres(url) || uri.getHost() == null || userInfo == null || userInfo.isEmpty() || db.isEmpty()
                || uri.getQuery() != null) {
            throw new IllegalArgumentException("invalid store address '" + url + "': use " + FORM);
        }
        String password = null;
        if (passwordEnv != null && !passwordEnv.isBlank()) {
            password = env.get(passwordEnv);
            if (password == null) {
                throw new IllegalArgumentException("the store's password variable " + passwordEnv
                        + " (--store-password-env) is not set");
            }
        } else {
            password = env.get("PGPASSWORD");
        }
        return new PostgresStoreConfig(userInfo, uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), db, password);
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    /** The address without any credential, for messages. */
    public String display() {
        return "postgres://" + user + "@" + host + ":" + port + "/" + database;
    }

    @Override
    public String toString() {
        return display();
    }
}
