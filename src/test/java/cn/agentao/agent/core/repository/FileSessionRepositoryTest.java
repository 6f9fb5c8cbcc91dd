package cn.agentao.agent.core.repository;

import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SyncPolicy;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;

/** The file store ({@link SessionStore}) shows the behaviour every repository must. */
class FileSessionRepositoryTest extends SessionRepositoryContract {
    @TempDir
    Path dir;

    @Override
    protected SessionRepository repository(Clock clock) {
        return new SessionStore(dir.resolve("sessions"), SyncPolicy.NO_FSYNC, clock);
    }
}
