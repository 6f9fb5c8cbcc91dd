package cn.agentao.agent.release;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The ACP smoke test of a release artefact: initialize, session/new, one prompt whose scripted answer calls
 * read_file and then streams text. Used by {@link ArchiveIT} and, through {@link #main}, by the release workflow
 * on every platform's archive and native binary. Throws {@link AssertionError} saying what went wrong.
 */
public final class AcpSmoke {
    private AcpSmoke() {}

    /** Runs the session against {@code launcher} with {@code baseEnv} plus the scripted model's variables. */
    public static void run(Path launcher, Map<String, String> baseEnv, Path scratch) throws Exception {
        Path ws = Files.createDirectories(scratch.resolve("ws"));
        Files.writeString(ws.resolve("notes.txt"), "the artefact can read files\n");
        try (FakeModelServer model = FakeModelServer.start()) {
            model.enqueue(Script.reply().toolCall("call_1", "read_file", "{\"path\":\"notes.txt\"}"),
                    Script.reply().text("Read ", "it."));
            Map<String, String> env = new HashMap<>(baseEnv);
            env.putAll(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", scratch.resolve("sessions").toString());
            try (AgentProcess agent = AgentProcess.startExactly(launcher, env, "--acp")) {
                JsonNode init = agent.call("initialize", Json.object().put("protocolVersion", 1).set("clientCapabilities", Json.object()),
                        Duration.ofSeconds(60));
                check(init.path("result").path("protocolVersion").asInt() == 1, "initialize: " + init + "\n" + agent.stderr());
                JsonNode created = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()));
                String sid = created.path("result").path("sessionId").asText();
                check(!sid.isEmpty(), "session/new: " + created + "\n" + agent.stderr());
                ObjectNode prompt = Json.object().put("sessionId", sid);
                prompt.putArray("prompt").addObject().put("type", "text").put("text", "read notes.txt");
                JsonNode answer = agent.call("session/prompt", prompt, Duration.ofSeconds(60));
                check("end_turn".equals(answer.path("result").path("stopReason").asText()), "session/prompt: " + answer + "\n" + agent.stderr());

                StringBuilder text = new StringBuilder();
                boolean toolDone = false;
                for (JsonNode u : agent.updates(sid)) {
                    String kind = u.path("sessionUpdate").asText();
                    if (kind.equals("agent_message_chunk")) text.append(u.path("content").path("text").asText());
                    if (kind.equals("tool_call_update") && u.path("status").asText().equals("completed")) toolDone = true;
                }
                check(text.toString().equals("Read it."), "streamed answer: '" + text + "'");
                check(toolDone, "the read_file tool did not complete: " + agent.updates(sid));
                check(model.requests().getLast().body().toString().contains("the artefact can read files"),
                        "the file's text did not go back to the model");
                check(agent.violations().equals(List.of()), "stdout held non-protocol lines: " + agent.violations());
                // JVM warnings (a refused AOT cache, sun.misc.Unsafe or restricted-method notices) reach the user.
                String err = agent.stderr();
                check(!err.contains("[warning]") && !err.contains("[error") && !err.contains("WARNING:"), "JVM warnings: " + err);
            }
        }
    }

    /**
     * A user's environment without Java: no JAVA_HOME, HOME of its own, and a PATH with no java on it. On Unix
     * that PATH is one directory holding only what the launchers use (bash, dirname, readlink, sed); on
     * Windows it is the current PATH less every directory with a java.exe.
     */
    public static Map<String, String> noJavaEnvironment(Path scratch) throws IOException {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", Files.createDirectories(scratch.resolve("home")).toString());
        env.put("LANG", "C.UTF-8");
        String path = System.getenv().getOrDefault("PATH", "");
        if (File.separatorChar == '\\') {
            for (String k : List.of("SystemRoot", "windir", "ComSpec", "PATHEXT", "TEMP", "TMP", "USERPROFILE")) if (System.getenv(k) != null) env.put(k, System.getenv(k));
            env.put("PATH", Stream.of(path.split(File.pathSeparator))
                    .filter(d -> !d.isBlank() && !Files.exists(Path.of(d, "java.exe")))
                    .collect(Collectors.joining(File.pathSeparator)));
        } else {
            Path tools = Files.createDirectories(scratch.resolve("tools"));
            for (String t : List.of("bash", "dirname", "readlink", "sed")) {
                Path real = Stream.of(path.split(File.pathSeparator)).map(d -> Path.of(d, t)).filter(Files::isExecutable)
                        .findFirst().orElseThrow(() -> new IllegalStateException(t + " not found on PATH"));
                Files.createSymbolicLink(tools.resolve(t), real);
            }
            env.put("PATH", tools.toString());
        }
        return env;
    }

    private static void check(boolean ok, String message) {
        if (!ok) throw new AssertionError(message);
    }

    /** {@code AcpSmoke LAUNCHER}: exits 0 when the session worked, run with no Java in the agent's environment. */
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: AcpSmoke PATH-TO-agent-LAUNCHER-OR-BINARY");
            System.exit(2);
        }
        Path scratch = Files.createTempDirectory("agent-smoke");
        try {
            run(Path.of(args[0]).toAbsolutePath(), noJavaEnvironment(scratch), scratch);
            System.out.println("smoke test passed: " + args[0]);
            System.exit(0);
        } catch (AssertionError e) {
            System.err.println("smoke test FAILED: " + args[0] + ": " + e.getMessage());
            System.exit(1);
        }
    }
}
