package cn.agentao.agent.store.postgres;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;

/**
 * What a failure to reach the store means, in one line a user can act on: no server at the address, the password
 * refused or missing, no such database. The driver's own words are kept (never a credential: the driver does not
 * put the password in its messages).
 */
final class PostgresErrors {
    private PostgresErrors() {}

    /** Why connecting to {@code config} failed ({@code e} as thrown by the pool or the driver). */
    static String connecting(PostgresStoreConfig config, Throwable e) {
        String where = config.host() + ":" + config.port();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnknownHostException) return "unknown host " + config.host();
            if (t instanceof ConnectException) return "no PostgreSQL server answers at " + where + " (" + t.getMessage() + ")";
        }
        SQLException sql = deepest(e);
        if (sql == null) return e.getMessage();
        String state = sql.getSQLState() == null ? "" : sql.getSQLState();
        String said = sql.getMessage();
        return switch (state) {
            case "28P01", "28000" -> said + " (the password comes from PGPASSWORD, or the variable --store-password-env names)";
            case "08004" -> said + " (set PGPASSWORD, or name the variable holding the password with --store-password-env)";
            case "3D000" -> said + " (create it, e.g. createdb -h " + config.host() + " -p " + config.port() + " -U "
                    + config.user() + " " + config.database() + ")";
            default -> state.startsWith("08") ? "cannot connect to " + where + ": " + said : said;
        };
    }

    private static SQLException deepest(Throwable e) {
        SQLException found = null;
        for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof SQLException s && s.getSQLState() != null) found = s;
        if (found != null) return found;
        for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof SQLException s) return s;
        return null;
    }
}
