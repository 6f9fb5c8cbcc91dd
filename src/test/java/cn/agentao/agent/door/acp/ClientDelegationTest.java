package cn.agentao.agent.door.acp;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.childenv.Credentials;
import cn.agentao.agent.tools.user.AskUserTool;
import cn.agentao.agent.core.tool.BinaryFileException;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.tools.files.EditTool;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.core.tool.local.LocalFileAccess;
import cn.agentao.agent.tools.files.ReadFileTool;
import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.tools.ToolTestSupport;
import cn.agentao.agent.core.tool.UserQuestions;
import cn.agentao.agent.tools.files.WriteFileTool;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;

import cn.agentao.agent.door.acp.protocol.ClientCapabilities;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static cn.agentao.agent.tools.ToolTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class ClientDelegationTest {

    /** A client that records every request and answers from per-method handlers. */
    static final class FakeClient implements ClientRequests {
        interface Handler {
            JsonNode answer(ObjectNode params) throws Exception;
        }

        record Call(String method, ObjectNode params) {}

        final List<Call> calls = new CopyOnWriteArrayList<>();
        final Map<String, Handler> handlers = new HashMap<>();

        FakeClient on(String method, Handler h) {
            handlers.put(method, h);
            return this;
        }

        @Override
        public JsonNode request(String method, ObjectNode params) throws Exception {
            calls.add(new Call(method, params.deepCopy()));
            Handler h = handlers.get(method);
            if (h == null) throw new IllegalStateException("unexpected " + method);
            return h.answer(params);
        }

        List<String> methods() {
            return calls.stream().map(Call::method).toList();
        }

        Call last(String method) {
            return calls.stream().filter(c -> c.method().equals(method)).reduce((a, b) -> b).orElseThrow();
        }
    }

    private static final ChildEnvironment CHILDREN = ChildEnvironment.ofAgent(List.of());

    /** The ACP environment of session s1 whose client requests go to {@code client}. */
    private static AcpEnvironment environment(ClientCapabilities caps, FakeClient client) {
        return new AcpEnvironment(caps, (method, params, cancel) -> client.request(method, params), "s1");
    }

    private static final CommandRunner.Spec SPEC =
            new CommandRunner.Spec("npm test", Path.of("/w"), Duration.ofSeconds(30), 4096);

    // ---- fs ----

    @Test
    void readsAndWritesThroughTheClient() throws Exception {
        FakeClient client = new FakeClient()
                .on("fs/read_text_file", p -> Json.object().put("content", "line 3\nline 4\n"))
                .on("fs/write_text_file", p -> Json.object());
        ClientFileAccess fs = new ClientFileAccess(client, "s1");
        assertEquals("line 3\nline 4\n", fs.readText(Path.of("/w/a.txt"), 3, 2));
        assertEquals(json("{\"sessionId\":\"s1\",\"path\":\"/w/a.txt\",\"line\":3,\"limit\":2}"),
                client.last("fs/read_text_file").params());
        fs.readText(Path.of("/w/a.txt"), null, null);
        assertEquals(json("{\"sessionId\":\"s1\",\"path\":\"/w/a.txt\"}"), client.last("fs/read_text_file").params());
        fs.writeText(Path.of("/w/b.txt"), "new");
        assertEquals(json("{\"sessionId\":\"s1\",\"path\":\"/w/b.txt\",\"content\":\"new\"}"),
                client.last("fs/write_text_file").params());
    }

    @Test
    void clientErrorsBecomeIOExceptionsAndBinaryIsRefused() {
        FakeClient failing = new FakeClient().on("fs/read_text_file", p -> {
            throw new RuntimeException("Resource not found");
        });
        IOException e = assertThrows(IOException.class,
                () -> new ClientFileAccess(failing, "s1").readText(Path.of("/w/x"), null, null));
        assertTrue(e.getMessage().contains("Resource not found"));
        FakeClient binary = new FakeClient().on("fs/read_text_file", p -> Json.object().put("content", "PNG\u0000\u0001"));
        assertThrows(BinaryFileException.class, () -> new ClientFileAccess(binary, "s1").readText(Path.of("/w/x"), null, null));
    }

    @Test
    void toolsWorkThroughClientFileAccess(@TempDir Path dir) throws Exception {
        Map<String, String> files = new HashMap<>(Map.of(dir.resolve("A.java").toString(), "int x = 1;\n"));
        FakeClient client = new FakeClient()
                .on("fs/read_text_file", p -> Json.object().put("content", files.get(p.get("path").asText())))
                .on("fs/write_text_file", p -> {
                    files.put(p.get("path").asText(), p.get("content").asText());
                    return Json.object();
                });
        SimpleToolContext ctx = new SimpleToolContext("s1", dir, List.of(dir), new ClientFileAccess(client, "s1"),
                new LocalCommandRunner(), UserQuestions.UNAVAILABLE, Cancellation.NONE);
        ToolResult r = new EditTool().prepare(json("{\"path\":\"A.java\",\"old_string\":\"1\",\"new_string\":\"2\"}"), ctx)
                .run(ToolProgress.NONE);
        assertFalse(r.isError(), r.forModel());
        assertEquals("int x = 2;\n", files.get(dir.resolve("A.java").toString()));
        assertFalse(Files.exists(dir.resolve("A.java")), "nothing was written locally");
    }

    // ---- terminal ----

    private static FakeClient terminalClient(CompletableFuture<JsonNode> exit) {
        return new FakeClient()
                .on("terminal/create", p -> Json.object().put("terminalId", "t-1"))
                .on("terminal/wait_for_exit", p -> exit.get())
                .on("terminal/kill", p -> {
                    exit.complete(Json.object().putNull("exitCode").put("signal", "SIGKILL"));
                    return Json.object();
                })
                .on("terminal/output", p -> {
                    ObjectNode out = Json.object().put("output", "some output\n").put("truncated", false);
                    if (exit.isDone()) out.set("exitStatus", exit.join());
                    return out;
                })
                .on("terminal/release", p -> Json.object());
    }

    @Test
    void runsInAClientTerminalAndReleasesIt() throws Exception {
        CompletableFuture<JsonNode> exit = CompletableFuture.completedFuture(Json.object().put("exitCode", 0));
        FakeClient client = terminalClient(exit);
        List<String> terminals = new CopyOnWriteArrayList<>();
        Map<String, String> agentEnv = Map.of("GITHUB_TOKEN", "ghp_0123456789abcdef", "HOME", "/home/me");
        ChildEnvironment children = ChildEnvironment.of(agentEnv, Credentials.of(agentEnv), List.of());
        CommandRunner.Result r = new ClientTerminalRunner(client, "s1", children).run(SPEC, new CommandRunner.Listener() {
            @Override
            public void terminal(String id) {
                terminals.add(id);
            }
        }, Cancellation.NONE);
        assertEquals(List.of("terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"), client.methods());
        assertEquals(json("""
                {"sessionId":"s1","command":"bash","args":["-c","npm test"],
                 "env":[{"name":"GITHUB_TOKEN","value":""},
                        {"name":"GIT_CONFIG_COUNT","value":"2"},
                        {"name":"GIT_CONFIG_KEY_0","value":"core.fsmonitor"},{"name":"GIT_CONFIG_KEY_1","value":"safe.bareRepository"},
                        {"name":"GIT_CONFIG_VALUE_0","value":"false"},{"name":"GIT_CONFIG_VALUE_1","value":"explicit"},
                        {"name":"GIT_PAGER","value":"cat"},{"name":"GIT_TERMINAL_PROMPT","value":"0"},{"name":"PAGER","value":"cat"}],
                 "cwd":"/w","outputByteLimit":4096}"""), sortedEnv(client.last("terminal/create").params()));
        assertEquals(json("{\"sessionId\":\"s1\",\"terminalId\":\"t-1\"}"), client.last("terminal/release").params());
        assertEquals(List.of("t-1"), terminals);
        assertEquals(0, r.exitCode());
        assertEquals("some output\n", r.output());
        assertEquals("t-1", r.terminalId());
    }

    private static ObjectNode sortedEnv(ObjectNode create) {
        List<JsonNode> env = new java.util.ArrayList<>();
        create.get("env").forEach(env::add);
        env.sort(java.util.Comparator.comparing(n -> n.get("name").asText()));
        create.putArray("env").addAll(env);
        return create;
    }

    @Test
    void cancellationKillsThenReleases() throws Exception {
        CompletableFuture<JsonNode> exit = new CompletableFuture<>();
        FakeClient client = terminalClient(exit);
        CancellationSource cancel = new CancellationSource();
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(200);
            } catch (InterruptedException ignored) {
            }
            cancel.cancel();
        });
        CommandRunner.Result r = new ClientTerminalRunner(client, "s1").run(SPEC, new CommandRunner.Listener() { }, cancel);
        assertTrue(r.cancelled());
        assertEquals("SIGKILL", r.signal());
        List<String> m = client.methods();
        assertTrue(m.indexOf("terminal/kill") > 0 && m.indexOf("terminal/kill") < m.indexOf("terminal/release"), m.toString());
        assertEquals("terminal/release", m.get(m.size() - 1));
    }

    @Test
    void timeoutKillsThenReleases() throws Exception {
        CompletableFuture<JsonNode> exit = new CompletableFuture<>();
        FakeClient client = terminalClient(exit);
        CommandRunner.Spec quick = new CommandRunner.Spec("sleep 100", Path.of("/w"), Duration.ofMillis(200), 4096);
        CommandRunner.Result r = new ClientTerminalRunner(client, "s1").run(quick, new CommandRunner.Listener() { },
                Cancellation.NONE);
        assertTrue(r.timedOut());
        assertTrue(client.methods().contains("terminal/kill"));
        assertEquals("terminal/release", client.methods().get(client.methods().size() - 1));
    }

    @Test
    void interruptStillReleasesAndKeepsTheInterrupt() throws Exception {
        CompletableFuture<JsonNode> exit = new CompletableFuture<>();
        FakeClient client = terminalClient(exit);
        CompletableFuture<Boolean> stillInterrupted = new CompletableFuture<>();
        Thread worker = Thread.ofPlatform().start(() -> {
            try {
                new ClientTerminalRunner(client, "s1").run(SPEC, new CommandRunner.Listener() { }, Cancellation.NONE);
                stillInterrupted.complete(Thread.currentThread().isInterrupted());
            } catch (Exception e) {
                stillInterrupted.completeExceptionally(e);
            }
        });
        while (!client.methods().contains("terminal/wait_for_exit")) Thread.sleep(10);
        worker.interrupt();
        assertTrue(stillInterrupted.get(10, TimeUnit.SECONDS), "the interrupt is kept for the caller");
        assertTrue(client.methods().contains("terminal/kill"));
        assertEquals("terminal/release", client.methods().get(client.methods().size() - 1));
    }

    @Test
    void releasesEvenWhenTheClientFails() throws Exception {
        FakeClient client = new FakeClient()
                .on("terminal/create", p -> Json.object().put("terminalId", "t-9"))
                .on("terminal/wait_for_exit", p -> {
                    throw new IOException("connection lost");
                })
                .on("terminal/output", p -> {
                    throw new IOException("connection lost");
                })
                .on("terminal/release", p -> Json.object());
        CommandRunner.Result r = new ClientTerminalRunner(client, "s1").run(SPEC, new CommandRunner.Listener() { },
                Cancellation.NONE);
        assertNull(r.exitCode());
        assertEquals("terminal/release", client.methods().get(client.methods().size() - 1));
    }

    @Test
    void aFailedCreateHasNothingToRelease() {
        FakeClient client = new FakeClient().on("terminal/create", p -> Json.object());
        assertThrows(IOException.class, () -> new ClientTerminalRunner(client, "s1")
                .run(SPEC, new CommandRunner.Listener() { }, Cancellation.NONE));
        assertEquals(List.of("terminal/create"), client.methods());
    }

    @Test
    void truncatedTerminalOutputIsAnnounced() throws Exception {
        FakeClient client = terminalClient(CompletableFuture.completedFuture(Json.object().put("exitCode", 1)))
                .on("terminal/output", p -> Json.object().put("output", "tail").put("truncated", true)
                        .set("exitStatus", Json.object().put("exitCode", 1)));
        CommandRunner.Result r = new ClientTerminalRunner(client, "s1").run(SPEC, new CommandRunner.Listener() { },
                Cancellation.NONE);
        assertEquals("… earlier output omitted\ntail", r.output());
        assertEquals(1, r.exitCode());
        assertTrue(r.truncated());
    }

    // ---- questions ----

    @Test
    void asksThroughTheExtension() throws Exception {
        FakeClient client = new FakeClient().on(ClientUserQuestions.METHOD,
                p -> Json.object().put("outcome", "answered").put("text", "blue"));
        assertEquals(Optional.of("blue"), new ClientUserQuestions(client, "s1").ask("Colour?", List.of("red", "blue")));
        assertEquals(json("{\"sessionId\":\"s1\",\"question\":\"Colour?\",\"options\":[\"red\",\"blue\"],\"allowCustom\":true}"),
                client.last(ClientUserQuestions.METHOD).params());
        FakeClient cancelled = new FakeClient().on(ClientUserQuestions.METHOD, p -> Json.object().put("outcome", "cancelled"));
        assertEquals(Optional.empty(), new ClientUserQuestions(cancelled, "s1").ask("Q?", List.of()));
        FakeClient broken = new FakeClient().on(ClientUserQuestions.METHOD, p -> {
            throw new IOException("gone");
        });
        assertEquals(Optional.empty(), new ClientUserQuestions(broken, "s1").ask("Q?", List.of()));
    }

    @Test
    void askUserToolSaysWhenNobodyCanAnswer(@TempDir Path dir) throws Exception {
        ToolResult r = ToolTestSupport.run(new AskUserTool(), ToolTestSupport.context(dir), "{\"question\":\"Proceed?\"}");
        assertEquals(AskUserTool.UNAVAILABLE, r.forModel());
        SimpleToolContext ctx = new SimpleToolContext("s1", dir, List.of(dir), new LocalFileAccess(), new LocalCommandRunner(),
                (q, o) -> Optional.of("yes, go"), Cancellation.NONE);
        assertEquals("yes, go", ToolTestSupport.run(new AskUserTool(), ctx, "{\"question\":\"Proceed?\"}").forModel());
    }

    // ---- choosing per capability ----

    @Test
    void environmentUsesTheClientOnlyForWhatItAdvertised() throws Exception {
        FakeClient client = new FakeClient();
        AcpEnvironment none = environment(ClientCapabilities.NONE, client);
        assertInstanceOf(LocalFileAccess.class, none.files(Cancellation.NONE));
        assertInstanceOf(LocalCommandRunner.class, none.commands(CHILDREN, Cancellation.NONE));
        assertEquals(UserQuestions.UNAVAILABLE, none.questions(Cancellation.NONE));

        client.on("terminal/create", p -> Json.object().put("terminalId", "t1"))
                .on("terminal/wait_for_exit", p -> Json.object().put("exitCode", 0))
                .on("terminal/output", p -> Json.object().put("output", "from the editor").put("truncated", false))
                .on("terminal/release", p -> Json.object());
        AcpEnvironment all = environment(ClientCapabilities.from(json(
                "{\"fs\":{\"readTextFile\":true,\"writeTextFile\":true},\"terminal\":true,\"_meta\":{\"askUser\":true}}")),
                client);
        assertInstanceOf(ClientFileAccess.class, all.files(Cancellation.NONE));
        // a command outside the sandbox runs in the client's terminal (sandboxed ones run here: SandboxRunTest)
        assertEquals("t1", all.commands(CHILDREN, Cancellation.NONE).run(SPEC, new CommandRunner.Listener() { }, Cancellation.NONE).terminalId());
        assertTrue(client.methods().contains("terminal/create"), client.methods().toString());
        assertInstanceOf(ClientUserQuestions.class, all.questions(Cancellation.NONE));
    }

    @Test
    void readOnlyClientFsStillWritesLocally(@TempDir Path dir) throws Exception {
        FakeClient client = new FakeClient().on("fs/read_text_file", p -> Json.object().put("content", "from editor"));
        AcpEnvironment env = environment(ClientCapabilities.from(json("{\"fs\":{\"readTextFile\":true}}")), client);
        assertEquals("from editor", env.files(Cancellation.NONE).readText(dir.resolve("x"), null, null));
        env.files(Cancellation.NONE).writeText(dir.resolve("x"), "local");
        assertEquals("local", Files.readString(dir.resolve("x")));
        assertEquals(List.of("fs/read_text_file"), client.methods());
    }
}
