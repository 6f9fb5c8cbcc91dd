package cn.agentao.agent.cli;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An editor's start (handshake and {@code session/new}) reads its classes from agent.jar and the AOT cache only: no
 * other jar of the class path is opened (each one opened reads its whole central directory into the heap and keeps it,
 * which the RSS after {@code session/new} pays; a resource or class looked up outside agent.jar opens them in order).
 */
class AcpStartJarsIT {
    @TempDir
    Path dir;

    @Test
    void sessionNewOpensNoJarButAgentJar() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs /proc to list the agent's open files");
        assumeTrue(Files.isRegularFile(AgentProcess.home().resolve("target/agent.aot")), "without the AOT cache classes come from the jars");
        try (FakeModelServer model = FakeModelServer.start()) {
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
            Path ws = Files.createDirectories(dir.resolve("ws"));
            try (AgentProcess a = AgentProcess.start(env, "--acp")) {
                a.call("initialize", Json.object().put("protocolVersion", 1));
                String id = a.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.MAPPER.createArrayNode()))
                        .path("result").path("sessionId").asText();
                assertFalse(id.isEmpty(), "session/new answered");
                assertEquals(List.of("agent.jar"), openJars(a.process().pid()), "jars open after session/new");
            }
        }
    }

    /** The file names of the .jar files process {@code pid} holds open (bin/agent execs java: same pid). */
    private static List<String> openJars(long pid) throws IOException {
        List<String> jars = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (target.toString().endsWith(".jar")) jars.add(target.getFileName().toString());
                } catch (IOException e) {
                    // closed while we looked
                }
            }
        }
        return jars.stream().distinct().sorted().toList();
    }
}
