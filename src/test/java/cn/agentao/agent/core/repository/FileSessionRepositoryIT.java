package cn.agentao.agent.core.repository;

import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.StoreChild;
import cn.agentao.agent.store.SyncPolicy;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The file store ({@link SessionStore}) shows the behaviour every repository must. */
class FileSessionRepositoryIT extends SessionRepositoryContract {
    @TempDir
    Path dir;

    @Override
    protected SessionRepository repository(Clock clock) {
        return new SessionStore(dir.resolve("sessions"), SyncPolicy.NO_FSYNC, clock);
    }

    /** Another JVM ({@link StoreChild} {@code hold}) takes the lease; closing kills it with SIGKILL. */
    @Override
    protected AutoCloseable leaseElsewhere(String sessionId) throws Exception {
        Process child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), StoreChild.class.getName(),
                "hold", dir.resolve("sessions").toString(), sessionId))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            String line = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertEquals("holding " + sessionId, line);
        } catch (Exception | AssertionError e) {
            child.destroyForcibly();
            throw e;
        }
        return () -> {
            child.toHandle().destroyForcibly();
            child.waitFor(60, TimeUnit.SECONDS);
        };
    }
}
