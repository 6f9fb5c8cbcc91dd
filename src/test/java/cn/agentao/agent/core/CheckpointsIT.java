package cn.agentao.agent.core;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.AgentRun;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code /undo} through the real program: advertised to an ACP editor, which reads and writes the files (as an editor
 * that saves its buffers), then after a restart through {@code agent -p --resume}, and gone with the session when
 * {@code agent sessions prune} removes it.
 */
class CheckpointsIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    Map<String, String> env;
    Path ws;
    Path store;
    AgentProcess agent;
    final List<String> editorWrites = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        ws = Files.createDirectories(dir.resolve("ws"));
        store = dir.resolve("store");
        env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", store.toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
    }

    @AfterEach
    void stop() {
        try {
            if (agent != null) assertEquals(List.of(), agent.violations(), "nothing but protocol on stdout");
        } finally { // the processes end even when that fails
            if (agent != null) agent.close();
            model.close();
        }
    }

    private static String json(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
    }

    private String say(String id, String text) throws Exception {
        int before = agent.agentText(id).length();
        JsonNode r = agent.call("session/prompt", AgentProcess.prompt(id, text), Duration.ofSeconds(60));
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        return agent.agentText(id).substring(before);
    }

    /** The editor: reads and writes the files on disk, as one that saves what the agent writes. */
    private void editor() {
        agent.onClientRequest("fs/read_text_file", p -> {
            try {
                return Json.object().put("content", Files.readString(Path.of(p.path("path").asText())));
            } catch (IOException e) {
                return null; // an error: no such file
            }
        });
        agent.onClientRequest("fs/write_text_file", p -> {
            try {
                Path path = Path.of(p.path("path").asText());
                Files.createDirectories(path.getParent());
                Files.writeString(path, p.path("content").asText());
                editorWrites.add(ws.relativize(path).toString());
                return Json.object();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @Test
    void undoInAnEditorThenAfterARestartThenPruneRemovesTheCheckpoints() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "alpha one\n");
        Files.writeString(ws.resolve("b.txt"), "bravo\n");
        Files.writeString(ws.resolve("c.txt"), "charlie\n");
        Files.writeString(ws.resolve("d.txt"), "delta\n");
        agent = AgentProcess.start(env, "--acp");
        editor();
        ObjectNode init = Json.object().put("protocolVersion", 1);
        init.putObject("clientCapabilities").putObject("fs").put("readTextFile", true).put("writeTextFile", true);
        assertTrue(agent.call("initialize", init).has("result"));
        JsonNode created = agent.call("session/new", Json.object().put("cwd", ws.toString()).set("mcpServers", Json.mapper().createArrayNode()));
        String id = created.path("result").path("sessionId").asText();
        JsonNode commands = agent.await(m -> "available_commands_update".equals(m.path("params").path("update").path("sessionUpdate").asText()),
                Duration.ofSeconds(30));
        List<String> names = new ArrayList<>();
        commands.path("params").path("update").path("availableCommands").forEach(c -> names.add(c.path("name").asText()));
        assertTrue(names.containsAll(List.of("undo", "rewind")), names.toString());

        // turn 1 changes d.txt; turn 2 creates one file and changes three
        model.enqueue(Script.reply().toolCall("t1", "edit", "{\"path\":\"d.txt\",\"old_string\":\"delta\",\"new_string\":\"DELTA\"}"),
                Script.textReply("Turn one."),
                Script.reply()
                        .toolCall("c1", "write_file", "{\"path\":\"new.txt\",\"content\":" + json("made by the agent\n") + "}")
                        .toolCall("c2", "edit", "{\"path\":\"a.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}")
                        .toolCall("c3", "write_file", "{\"path\":\"b.txt\",\"content\":" + json("bravo by the agent\n") + "}")
                        .toolCall("c4", "edit", "{\"path\":\"c.txt\",\"old_string\":\"charlie\",\"new_string\":\"CHARLIE\"}"),
                Script.textReply("Turn two."));
        say(id, "change d");
        say(id, "change the others");
        assertEquals("ALPHA one\n", Files.readString(ws.resolve("a.txt")), "the editor wrote it");
        assertTrue(Files.exists(ws.resolve("new.txt")));
        Files.writeString(ws.resolve("c.txt"), "the user's own\n");
        editorWrites.clear();

        String undo = say(id, "/undo");
        assertTrue(undo.contains("Undid turn 2"), undo);
        assertEquals("alpha one\n", Files.readString(ws.resolve("a.txt")));
        assertEquals("bravo\n", Files.readString(ws.resolve("b.txt")));
        assertFalse(Files.exists(ws.resolve("new.txt")), undo);
        assertEquals("the user's own\n", Files.readString(ws.resolve("c.txt")));
        assertEquals("DELTA\n", Files.readString(ws.resolve("d.txt")), "turn 1 stays");
        assertTrue(undo.contains("Skipped: `c.txt`"), undo);
        assertTrue(editorWrites.containsAll(List.of("a.txt", "b.txt")), "restored through the editor: " + editorWrites);
        agent.closeStdin();
        assertEquals(0, agent.awaitExit(Duration.ofSeconds(30)));

        AgentRun.Result resumed = AgentRun.run(ws, env, null, "-p", "/undo", "--resume", id);
        assertEquals(0, resumed.exit(), resumed.stderr());
        assertTrue(resumed.stdout().contains("Undid turn 1"), resumed.stdout());
        assertEquals("delta\n", Files.readString(ws.resolve("d.txt")), "undone after the restart");

        Path shadow = store.resolve("checkpoints").resolve(id);
        assertTrue(Files.isDirectory(shadow));
        AgentRun.Result pruned = AgentRun.run(ws, env, null, "sessions", "prune", "--keep", "0");
        assertEquals(0, pruned.exit(), pruned.stderr());
        assertTrue(pruned.stdout().contains("deleted " + id), pruned.stdout());
        assertFalse(Files.exists(shadow), "the checkpoints went with the session");
    }
}
