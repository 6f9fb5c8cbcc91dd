package cn.agentao.agent.cli;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
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
import static org.junit.jupiter.api.Assertions.assertTrue;
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
                String id = a.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()))
                        .path("result").path("sessionId").asText();
                assertFalse(id.isEmpty(), "session/new answered");
                assertEquals(List.of("agent.jar"), openJars(a.process().pid()), "jars open after session/new");
            }
        }
    }

    /**
     * Nor does it build Jackson's mapper or run {@code BigDecimal}'s class initialisation (which every Jackson parser
     * sets off): together about 3.5 MB of heap and 15 ms of CPU before the first answer, for what an editor's start
     * does not need. The JVM's own log of class initialisations says which classes were initialised.
     */
    @Test
    void sessionNewBuildsNoMapperAndNoBigDecimal() throws Exception {
        Path log = dir.resolve("class-init.log");
        try (FakeModelServer model = FakeModelServer.start()) {
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
            env.put("AGENT_JAVA_OPTS", "-Xlog:class+init=info:file=" + log);
            Path ws = Files.createDirectories(dir.resolve("ws"));
            try (AgentProcess a = AgentProcess.start(env, "--acp")) {
                a.call("initialize", Json.object().put("protocolVersion", 1));
                String id = a.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.array()))
                        .path("result").path("sessionId").asText();
                assertFalse(id.isEmpty(), "session/new answered");
                a.await(m -> "available_commands_update".equals(m.path("params").path("update").path("sessionUpdate").asText()),
                        java.time.Duration.ofSeconds(30));
                String inits = Files.readString(log);
                assertTrue(inits.contains("Initializing 'cn/agentao/agent/door/acp/SessionSetupHandlers'"), "the log lists initialisations");
                assertFalse(inits.contains("'com/fasterxml/jackson/databind/ObjectMapper'"), "ObjectMapper initialised by the start");
                assertFalse(inits.contains("'java/math/BigDecimal'"), "BigDecimal initialised by the start");
                // and the session still works: a prompt is answered (the mapper is built when something needs it)
                model.enqueue(Script.textReply("fine, thanks"));
                JsonNode r = a.call("session/prompt", Json.object().put("sessionId", id)
                        .set("prompt", Json.array().add(Json.object().put("type", "text").put("text", "how are you?"))));
                assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
                assertTrue(a.updates(id).stream().anyMatch(u -> u.path("content").path("text").asText().contains("fine, thanks")),
                        "the answer was streamed");
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
