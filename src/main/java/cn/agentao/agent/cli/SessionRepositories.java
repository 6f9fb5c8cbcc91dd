package cn.agentao.agent.cli;

import cn.agentao.agent.childenv.CredentialNames;
import cn.agentao.agent.config.StoreSettings;
import cn.agentao.agent.core.repository.Page;
import cn.agentao.agent.core.repository.PruneResult;
import cn.agentao.agent.core.repository.PruneRule;
import cn.agentao.agent.core.repository.SessionHeading;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.core.repository.StoreUnavailableException;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.postgres.PostgresStoreConfig;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Which session repository the process uses, for every door and {@code agent sessions}: the file store, unless
 * {@code AGENT_STORE=postgres://USER@HOST:PORT/DB} (or {@code --store}, see {@link StoreOptions}) chooses PostgreSQL
 * (password from {@code PGPASSWORD} or the variable {@code AGENT_STORE_PASSWORD_ENV} names). An explicit
 * {@code --sessions-dir} keeps the file store. A bad address does not stop the process here: every use of the
 * store then fails with one line saying what is wrong, which each door reports its own way (a JSON-RPC error,
 * a line and exit 1); The servers ({@code a2a serve}, {@code agora}) list once at start and refuse to start without their store.
 */
public final class SessionRepositories {
    private SessionRepositories() {}

    /** The repository the configuration's {@code store} section chooses. */
    public static SessionRepository open(StoreSettings settings) {
        String store = settings.address();
        if (settings.addressed()) {
            String passwordEnv = settings.passwordEnv();
            CredentialNames.declare(passwordEnv); // never passed to a child, whatever its name
            if (!PostgresStoreConfig.isPostgres(store)) {
                return new Unusable("the session store address '" + store + "' is not one this agent knows: use "
                        + PostgresStoreConfig.FORM + ", or unset " + PostgresStoreConfig.STORE_ENV + " to keep sessions in files");
            }
            try {
                // checkpoints stay on this machine, beside where the file store would keep sessions
                return postgres(PostgresStoreConfig.parse(store, settings.passwordVariables(), passwordEnv),
                        settings.defaultDirectory().resolveSibling("checkpoints"));
            } catch (IllegalArgumentException e) {
                return new Unusable(e.getMessage());
            }
        }
        return new SessionStore(settings.directory());
    }

    /** Its own method so that the driver and pool classes load only when PostgreSQL is chosen. */
    private static SessionRepository postgres(PostgresStoreConfig config, Path checkpoints) {
        return new cn.agentao.agent.store.postgres.PostgresSessionRepository(config, java.time.Clock.systemUTC(), checkpoints);
    }

    /** A store that cannot be used (its address is wrong): every use fails with the reason. */
    private record Unusable(String reason) implements SessionRepository {
        private SessionStoreException failure() { return new StoreUnavailableException(reason); }
        @Override public SessionLease create(String sessionId, Path cwd, ObjectNode headerExtra) { throw failure(); }
        @Override public SessionLease lease(String sessionId) { throw failure(); }
        @Override public SessionHeading scan(String sessionId, Consumer<ObjectNode> each) { throw failure(); }
        @Override public Page<SessionSummary> list(Path cwdFilter, String cursor, int pageSize) { throw failure(); }
        @Override public Optional<String> latestFor(Path cwd) { throw failure(); }
        @Override public String resolvePrefix(String idOrPrefix) { throw failure(); }
        @Override public boolean exists(String sessionId) { throw failure(); }
        @Override public boolean isLive(String sessionId) { throw failure(); }
        @Override public boolean delete(String sessionId) { throw failure(); }
        @Override public PruneResult prune(PruneRule rule) { throw failure(); }
        @Override public PruneResult planPrune(PruneRule rule) { throw failure(); }
        @Override public void exportLog(String sessionId, OutputStream out) { throw failure(); }
        @Override public String location() { return "(no usable session store)"; }
        @Override public String relocateHint() { return "correct --store (or " + PostgresStoreConfig.STORE_ENV + ")"; }
    }
}
