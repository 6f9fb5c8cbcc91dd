package cn.agentao.agent.release;

import cn.agentao.agent.protocol.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The standalone release archive as a user without Java gets it: built by {@code scripts/build-archive.sh --fast}
 * (the release's runtime, app and AOT cache; only the compression is lighter), unpacked into an empty directory and
 * run with no JDK on PATH and no JAVA_HOME.
 */
class ArchiveIT {
    @TempDir
    static Path tmp;
    static Path unpacked;
    static Path tools;
    static String version;

    @BeforeAll
    static void buildAndUnpack() throws Exception {
        Path home = AgentProcess.home();
        Path out = Files.createDirectories(tmp.resolve("out"));
        Map<String, String> buildEnv = Map.of("JAVA_HOME", System.getProperty("java.home"), "PATH", System.getenv("PATH"),
                "HOME", System.getProperty("user.home"));
        run(home, buildEnv, Duration.ofMinutes(8), "bash", home.resolve("scripts/build-archive.sh").toString(), "--fast", "--out", out.toString());
        List<Path> archives;
        try (Stream<Path> s = Files.list(out)) { archives = s.filter(p -> p.toString().endsWith(".zip")).toList(); }
        assertEquals(1, archives.size(), "one standalone archive: " + archives);
        String name = archives.getFirst().getFileName().toString();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("agent-(.+)-(linux|osx)-(x86_64|aarch_64)\\.zip").matcher(name);
        assertTrue(m.matches(), name);
        version = m.group(1);

        unpacked = Files.createDirectories(tmp.resolve("empty"));
        run(unpacked, Map.of("PATH", System.getenv("PATH")), Duration.ofMinutes(2), "unzip", "-q", archives.getFirst().toString());
        // PATH with only what the launcher script itself uses: no java anywhere on it.
        tools = Files.createDirectories(tmp.resolve("tools"));
        for (String t : List.of("bash", "dirname", "readlink")) {
            Path real = Stream.of("/usr/bin", "/bin").map(d -> Path.of(d, t)).filter(Files::isExecutable).findFirst().orElseThrow();
            Files.createSymbolicLink(tools.resolve(t), real);
        }
    }

    /** A user's environment without Java: PATH of a shell and two tools, HOME of its own, no JAVA_HOME. */
    static Map<String, String> noJavaEnvironment() throws IOException {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", tools.toString());
        env.put("HOME", Files.createDirectories(tmp.resolve("home")).toString());
        env.put("LANG", "C.UTF-8");
        return env;
    }

    @Test
    void holdsItsOwnRuntimeTheAppAndAnAotCacheForThatRuntime() {
        Path agent = unpacked.resolve("agent");
        assertTrue(Files.isExecutable(agent.resolve("bin/agent")), "bin/agent executable");
        assertTrue(Files.isRegularFile(agent.resolve("bin/agent.cmd")), "the Windows launcher");
        assertTrue(Files.isExecutable(agent.resolve("runtime/bin/java")), "a runtime of its own");
        assertFalse(Files.exists(agent.resolve("runtime/bin/javac")), "a runtime, not a JDK");
        assertTrue(Files.isRegularFile(agent.resolve("app/agent.jar")));
        if (Runtime.version().feature() >= 25) {
            assertTrue(Files.isRegularFile(agent.resolve("app/agent.aot")), "the AOT cache trained on the archive's runtime");
        }
    }

    @Test
    void versionRunsWithoutJavaInstalled() throws Exception {
        Result r = run(tmp, noJavaEnvironment(), Duration.ofMinutes(1), unpacked.resolve("agent/bin/agent").toString(), "--version");
        assertTrue(r.stdout.startsWith("agent " + version + "\n"), r.stdout);
        // A refused or stale AOT cache is a JVM warning on stderr: there must be none.
        assertEquals("", r.stderr, "nothing on stderr (the AOT cache was accepted)");
    }

    @Test
    void servesAWholeAcpSessionAgainstTheScriptedModel() throws Exception {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("notes.txt"), "the archive can read files\n");
        try (FakeModelServer model = FakeModelServer.start()) {
            model.enqueue(Script.reply().toolCall("call_1", "read_file", "{\"path\":\"notes.txt\"}"),
                    Script.reply().text("Read ", "it."));
            Map<String, String> env = noJavaEnvironment();
            env.putAll(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", tmp.resolve("sessions").toString());
            try (AgentProcess agent = AgentProcess.startExactly(unpacked.resolve("agent/bin/agent"), env, "--acp")) {
                JsonNode init = agent.call("initialize", Json.object().put("protocolVersion", 1).set("clientCapabilities", Json.object()),
                        Duration.ofSeconds(60));
                assertEquals(1, init.path("result").path("protocolVersion").asInt(), init.toString());
                JsonNode created = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.MAPPER.createArrayNode()));
                String sid = created.path("result").path("sessionId").asText();
                assertFalse(sid.isEmpty(), created.toString());
                ObjectNode prompt = Json.object().put("sessionId", sid);
                prompt.putArray("prompt").addObject().put("type", "text").put("text", "read notes.txt");
                JsonNode answer = agent.call("session/prompt", prompt, Duration.ofSeconds(60));
                assertEquals("end_turn", answer.path("result").path("stopReason").asText(), answer + "\n" + agent.stderr());

                StringBuilder text = new StringBuilder();
                boolean toolDone = false;
                for (JsonNode u : agent.updates(sid)) {
                    String kind = u.path("sessionUpdate").asText();
                    if (kind.equals("agent_message_chunk")) text.append(u.path("content").path("text").asText());
                    if (kind.equals("tool_call_update") && u.path("status").asText().equals("completed")) toolDone = true;
                }
                assertEquals("Read it.", text.toString());
                assertTrue(toolDone, "the read_file tool ran: " + agent.updates(sid));
                assertTrue(model.requests().getLast().body().toString().contains("the archive can read files"),
                        "the file's text went back to the model");
                assertEquals(List.of(), agent.violations(), "stdout holds only JSON-RPC");
                assertFalse(agent.stderr().contains("[warning]"), agent.stderr());
            }
        }
    }

    record Result(String stdout, String stderr) {}

    static Result run(Path dir, Map<String, String> env, Duration timeout, String... cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Path err = Files.createTempFile(tmp, "err", ".txt");
        Path outFile = Files.createTempFile(tmp, "out", ".txt");
        pb.redirectError(err.toFile()).redirectOutput(outFile.toFile());
        Process p = pb.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", cmd) + " did not finish within " + timeout);
        }
        Result r = new Result(Files.readString(outFile, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + r.stdout + r.stderr);
        return r;
    }
}
