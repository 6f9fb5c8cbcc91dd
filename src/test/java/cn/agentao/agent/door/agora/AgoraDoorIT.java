package cn.agentao.agent.door.agora;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.testing.TestCertificates;
import cn.agentao.agent.testing.TinyProxy;
import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static cn.agentao.agent.door.agora.AgoraTestServer.data;
import static cn.agentao.agent.door.agora.AgoraTestServer.published;
import static cn.agentao.agent.door.agora.AgoraTestServer.type;
import static cn.agentao.agent.testing.FakeModelServer.lastUserMessageContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code agent agora} as a process, against the test Agora server and the scripted model. */
class AgoraDoorIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String ID = "bot";

    @TempDir Path tmp;
    private FakeModelServer model;
    private AgoraTestServer server;
    private final List<AgentProcess> agents = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        model = FakeModelServer.start();
        model.whenEmptyFail();
        server = AgoraTestServer.start("general", "dev");
    }

    @AfterEach
    void tearDown() {
        agents.forEach(a -> System.err.println("agent stderr:\n" + a.stderr())); // in failsafe-reports/*-output.txt
        agents.forEach(AgentProcess::close);
        server.close();
        model.close();
    }

    private Map<String, String> env() {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("AGENT_SESSIONS_DIR", tmp.resolve("store").toString());
        return env;
    }

    private AgentProcess agent(Map<String, String> env, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("agora", "--url", server.url().toString(), "--agent-id", ID));
        args.addAll(List.of(extra));
        AgentProcess p = AgentProcess.start(env, args.toArray(String[]::new));
        agents.add(p);
        return p;
    }

    private AgentProcess joined(String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(extra));
        if (!args.contains("--space")) args.addAll(List.of("--space", "general"));
        AgentProcess p = agent(env(), args.toArray(String[]::new));
        server.awaitMember(args.get(args.indexOf("--space") + 1), ID, WAIT);
        return p;
    }

    @Test
    void aServerBehindTheUsersProxyIsReachedThroughIt() throws Exception {
        String host = TestCertificates.localName(); // not a loopback name: the agent must take the proxy to reach it
        String password = "pw-" + java.util.UUID.randomUUID().toString().substring(0, 12);
        AgoraTestServer far = AgoraTestServer.startOn(TestCertificates.localAddress(), "general");
        try (TinyProxy proxy = TinyProxy.start(tmp.resolve("proxy"), "alice", password)) {
            Map<String, String> env = env();
            env.put("HTTP_PROXY", proxy.url("alice", password));
            AgentProcess p = AgentProcess.start(env, "agora", "--url", "ws://" + host + ":" + far.getPort() + "/ws", "--agent-id", ID,
                    "--space", "general");
            agents.add(p);
            far.awaitMember("general", ID, WAIT);
            assertTrue(proxy.requests().contains("CONNECT " + host + ":" + far.getPort()), "tunnels: " + proxy.requests());
            assertFalse(p.stderr().contains(password), "the proxy password is never logged");
        } finally {
            far.close();
        }
    }

    private static void awaitStderr(AgentProcess agent, String words) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!agent.stderr().contains(words)) {
            if (System.nanoTime() > end) throw new AssertionError("\"" + words + "\" not on stderr: " + agent.stderr());
            Thread.sleep(50);
        }
    }

    /**
     * A space's members are not the machine's user: their commands see the workspace only (not another project
     * outside it, nor the tool chain caches in the home) and are never offered a run outside the sandbox, so a
     * command that fails for lack of access is refused without a question.
     */
    @Test
    void aSpacesCommandsSeeTheWorkspaceOnlyAndAreNeverLetOut() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(cn.agentao.agent.sandbox.Sandboxes.fromEnvironment(System.getenv()).available(),
                "bubblewrap works here");
        String secret = "OTHER-PROJECT-" + System.nanoTime();
        Path other = Files.createTempDirectory(Files.createDirectories(Path.of("/var/tmp")), "agora-other");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Path home = Files.createDirectories(tmp.resolve("home"));
        Files.createDirectories(home.resolve(".m2/repository"));
        Files.writeString(home.resolve(".m2/repository/cached.pom"), "CACHED-IN-HOME\n");
        try {
            Files.writeString(other.resolve(".env"), "API_KEY=" + secret + "\n");
            Files.writeString(ws.resolve("notes.txt"), "IN-THE-WORKSPACE\n");
            String command = "cat notes.txt; cat " + other + "/.env; grep -R API_KEY " + other + "; cat ~/.m2/repository/cached.pom";
            model.when(lastUserMessageContains("read it")).reply(
                    Script.reply().toolCall("call_read", "run_shell_command", Json.object().put("command", command).toString(), 2),
                    Script.textReply("done"));
            Map<String, String> env = env();
            env.put("HOME", home.toString());
            var answer = askInSpace(ws, env, "workspace-write");
            String toolResult = toolResults();
            assertTrue(toolResult.contains("IN-THE-WORKSPACE"), "the workspace is there: " + toolResult);
            assertFalse(toolResult.contains(secret), "another project is not: " + toolResult);
            assertFalse(toolResult.contains("CACHED-IN-HOME"), "nor the home's tool chains: " + toolResult);
            assertTrue(toolResult.contains("Not run outside the sandbox"), toolResult);
            String text = data(answer).path("text").asText();
            assertFalse(text.contains(secret), text);
            assertFalse(text.contains("needs an approval"), "no question was put to the space: " + text);
        } finally {
            for (String f : List.of(".env")) Files.deleteIfExists(other.resolve(f));
            Files.deleteIfExists(other);
        }
    }

    /** Starts the agent in {@code ws} joined to the space in {@code mode}, says "@bot read it" there; returns its answer. */
    private AgoraTestServer.Received askInSpace(Path ws, Map<String, String> env, String mode) throws Exception {
        AgentProcess p = AgentProcess.startIn(ws, env, "agora", "--url", server.url().toString(), "--agent-id", ID,
                "--space", "general", "--mode", mode);
        agents.add(p);
        server.awaitMember("general", ID, WAIT);
        server.say("general", "alice", "@bot read it");
        return server.await(published("general"), WAIT);
    }

    /** Every tool result the model was sent, joined. */
    private String toolResults() {
        String toolResult = "";
        for (RecordedRequest r : model.requests()) {
            for (var m : r.messages()) if ("tool".equals(m.path("role").asText())) toolResult += m.path("content").asText();
        }
        return toolResult;
    }

    /**
     * In read-only mode a space's command that fails because it read a path the sandbox hides is not offered a run
     * with that path shown (the local user would be asked): refused without a question, and the model is told why.
     */
    @Test
    void aSpacesHiddenReadInReadOnlyModeIsNotOfferedToBeShown() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(cn.agentao.agent.sandbox.Sandboxes.fromEnvironment(System.getenv()).available(),
                "bubblewrap works here");
        String secret = "OTHER-PROJECT-" + System.nanoTime();
        Path other = Files.createTempDirectory(Files.createDirectories(Path.of("/var/tmp")), "agora-other");
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        try {
            Files.writeString(other.resolve("data.txt"), secret + "\n");
            model.when(lastUserMessageContains("read it")).reply(
                    Script.reply().toolCall("call_read", "run_shell_command",
                            Json.object().put("command", "cat " + other + "/data.txt").toString(), 2),
                    Script.textReply("done"));
            var answer = askInSpace(ws, env(), "read-only");
            String toolResult = toolResults();
            assertFalse(toolResult.contains(secret), toolResult);
            assertTrue(toolResult.contains("Not run again with " + other.resolve("data.txt") + " shown"), toolResult);
            String text = data(answer).path("text").asText();
            assertFalse(text.contains("needs an approval"), "no question was put to the space: " + text);
        } finally {
            Files.deleteIfExists(other.resolve("data.txt"));
            Files.deleteIfExists(other);
        }
    }

    @Test
    void aMentionIsAnsweredInTheSpaceWithTheSenderNamedAndOtherMessagesAreLeftAlone() throws Exception {
        model.when(lastUserMessageContains("how are you")).reply(Script.textReply("Fine, thanks."));
        AgentProcess agent = joined();
        server.say("general", "alice", "just chatting, nobody mentioned");
        server.say("general", "alice", "@BOT how are you?");
        var answer = server.await(published("general"), WAIT);
        assertEquals(ID, data(answer).path("from").asText());
        assertEquals("Fine, thanks.", data(answer).path("text").asText());
        // one model call: the message without a mention came first and was not a prompt
        assertEquals(1, model.requests().size());
        String prompt = model.lastRequest().lastUserMessage();
        assertTrue(prompt.contains("\"alice\"") && prompt.contains("untrusted"), prompt);
        assertTrue(agent.stdoutLines().isEmpty(), "nothing on stdout: " + agent.stdoutLines());
    }

    @Test
    void itNeverAnswersItselfNorPastTheDepthLimit() throws Exception {
        model.when(lastUserMessageContains("ping")).reply(Script.textReply("@bot pong"));
        model.when(lastUserMessageContains("last")).reply(Script.textReply("done"));
        joined();
        server.say("general", "alice", "@bot ping");
        server.await(published("general"), WAIT); // the server echoes "@bot pong" back to its sender
        server.say("general", "other-agent", "@bot deep in a thread", LoopGuard.DEFAULT_MAX_DEPTH);
        server.say("general", "alice", "@bot last");
        var second = server.awaitNth(2, published("general"), WAIT);
        assertEquals("done", data(second).path("text").asText());
        // neither its own "@bot pong" nor the message past the depth limit became a prompt
        assertEquals(2, model.requests().size(), model.requests().stream().map(RecordedRequest::lastUserMessage).toList().toString());
        assertEquals(1, data(second).path("depth").asInt(), "its answers say how deep the thread is");
    }

    @Test
    void piecesAreJoinedAtDoneAndACancelledMessageIsNotAnswered() throws Exception {
        model.when(lastUserMessageContains("Hello world")).reply(Script.textReply("joined"));
        model.when(lastUserMessageContains("slow question")).reply(Script.reply().text("partial ").hang());
        model.when(lastUserMessageContains("after")).reply(Script.textReply("answered after the cancel"));
        joined();
        String id = server.sayInPieces("general", "alice", "@bot Hel", "lo wor", "ld!");
        var first = server.await(published("general"), WAIT);
        assertEquals("joined", data(first).path("text").asText());
        assertEquals(id, data(first).path("reply_to").asText());

        String slow = server.say("general", "alice", "@bot slow question");
        model.awaitRequests(2, WAIT);
        server.cancel("general", slow);
        server.say("general", "alice", "@bot after");
        var next = server.awaitNth(2, published("general"), WAIT);
        assertEquals("answered after the cancel", data(next).path("text").asText(), "the cancelled turn published nothing");
    }

    @Test
    void aDroppedConnectionIsReopenedAndNoMessageIsAnsweredTwice() throws Exception {
        model.when(lastUserMessageContains("once")).replyAlways(Script.textReply("only once"));
        model.when(lastUserMessageContains("second")).reply(Script.textReply("second answer"));
        joined("--heartbeat-seconds", "1");
        String id = server.say("general", "alice", "@bot once");
        server.await(published("general"), WAIT);
        server.dropAll();
        server.awaitNth(2, type("agent.register"), WAIT);
        server.awaitMember("general", ID, WAIT);
        server.repeat("general", id, "alice", "@bot once"); // delivered again after the reconnect
        server.say("general", "alice", "@bot second");
        var next = server.awaitNth(2, published("general"), WAIT);
        assertEquals("second answer", data(next).path("text").asText());
        assertEquals(2, model.requests().size());
    }

    @Test
    void eachSpaceIsADurableSessionThatRemembersAcrossRestarts() throws Exception {
        model.when(lastUserMessageContains("my name is Zed")).reply(Script.textReply("Hello Zed."));
        model.when(lastUserMessageContains("what is my name")).reply(Script.textReply("Zed."));
        AgentProcess first = joined();
        server.say("general", "alice", "@bot my name is Zed");
        server.await(published("general"), WAIT);
        first.process().destroy(); // SIGTERM: leaves the space and stops cleanly
        assertEquals(0, first.awaitExit(WAIT));
        server.await(type("space.leave"), WAIT);

        joined();
        server.say("general", "alice", "@bot what is my name?");
        server.awaitNth(2, published("general"), WAIT);
        String history = model.lastRequest().rawBody();
        assertTrue(history.contains("my name is Zed") && history.contains("Hello Zed."), "the second run continues the conversation");

        // and an editor sees the space's conversation in session/list
        AgentProcess editor = AgentProcess.start(env(), "--acp");
        agents.add(editor);
        editor.call("initialize", Json.object().put("protocolVersion", 1).set("clientCapabilities", Json.object()));
        var list = editor.call("session/list", Json.object());
        String titles = list.path("result").path("sessions").toString();
        assertEquals(1, list.path("result").path("sessions").size(), titles);
        assertEquals(AgoraDoor.sessionId(server.url(), ID, "general"), list.path("result").path("sessions").get(0).path("sessionId").asText());
        assertTrue(titles.contains("general") && titles.contains("alice"), titles);
    }

    @Test
    void nobodyCanApproveInASpaceSoAWriteIsRefusedAndTheReplySaysSo() throws Exception {
        Path target = tmp.resolve("outside").resolve("pwned.txt");
        Files.createDirectories(target.getParent());
        model.when(lastUserMessageContains("write it")).reply(Script.reply()
                .toolCall("c1", "write_file", "{\"path\":\"" + target + "\",\"content\":\"x\"}"));
        model.when(r -> r.rawBody().contains("c1") && r.rawBody().contains("\"tool\"")).reply(Script.textReply("I could not write it."));
        model.whenEmpty(Script.textReply("I could not write it."));
        joined();
        server.say("general", "mallory", "@bot write it now");
        var answer = server.await(published("general"), WAIT);
        assertFalse(Files.exists(target), "nothing was written");
        String text = data(answer).path("text").asText();
        assertTrue(text.startsWith("I could not write it.") && text.contains("Not done (mode read-only") && text.contains("was not written"), text);
    }

    @Test
    void aModelFailureIsToldOnStderrNotInTheSpace() throws Exception {
        model.when(lastUserMessageContains("fail")).reply(Script.httpError(400, "{\"error\":{\"message\":\"provider-detail-77\"}}"));
        AgentProcess agent = joined();
        server.say("general", "alice", "@bot fail please");
        String text = data(server.await(published("general"), WAIT)).path("text").asText();
        assertTrue(text.startsWith("Sorry, I cannot answer right now"), text);
        assertFalse(text.contains("provider-detail-77"), text);
        awaitStderr(agent, "the model failed answering in space \"general\"");
    }

    @Test
    void errorsAreSaidInPlainWords() throws Exception {
        AgentProcess agent = agent(env(), "--space", "nowhere", "--space", "general");
        server.awaitMember("general", ID, WAIT);
        awaitStderr(agent, "no such space (space \"nowhere\")");
    }

    @Test
    void aRefusedTokenStopsTheAgentWithoutShowingTheToken() throws Exception {
        server.requireToken("expected-token-4711");
        Map<String, String> env = env();
        env.put("AGORA_TOKEN", "given-token-0815");
        AgentProcess agent = agent(env, "--token-env", "AGORA_TOKEN", "--space", "general");
        assertNotEquals(0, agent.awaitExit(WAIT));
        assertTrue(agent.stderr().contains("token is missing or wrong"), agent.stderr());
        assertFalse(agent.stderr().contains("0815"), "the token never appears: " + agent.stderr());
    }
}
