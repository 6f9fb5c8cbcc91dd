package cn.agentao.agent.cli;

import cn.agentao.agent.testing.AgentProcess;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The build trains the AOT cache bin/agent starts with; a failed training would only show as a slow start. */
class AotCacheIT {
    @Test
    void packageBuildsTheAotCacheOnJdk25AndLater() throws Exception {
        assumeTrue(Runtime.version().feature() >= 25, "AOT caches need JDK 25; this build runs on " + Runtime.version());
        Path cache = AgentProcess.home().resolve("target/agent.aot");
        assertTrue(Files.isRegularFile(cache), "scripts/train-aot.sh did not produce " + cache);
        assertTrue(Files.size(cache) > 10_000_000, "the cache holds the classes of a whole session: " + Files.size(cache) + " bytes");
    }
}
