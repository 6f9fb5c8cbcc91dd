package cn.agentao.agent.core;

import cn.agentao.agent.cli.CoreFactory;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.TurnResult;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Cancellation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Memory in-process, wired as the process wires it ({@link CoreFactory}): what one session saves, with the tool or
 * {@code /memory}, a new session's first model request carries; a project's facts stay with that project; a space
 * or a remote caller neither sees nor writes any.
 */
@Timeout(60)
class MemoryTest {
    @TempDir
    Path dir;
    FakeModelServer model;
    SessionService sessions;
    Path configDir;
    Path ws;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        Map<String, String> env = CoreFixture.environment(dir, model);
        configDir = ConfigLocations.userConfigDir(env);
        sessions = CoreFactory.create(env, dir.resolve("store"));
        ws = Files.createDirectories(dir.resolve("ws"));
    }

    @AfterEach
    void stop() {
        sessions.close();
        model.close();
    }

    private Session open(Host host, Path cwd) throws CoreException {
        Session s = sessions.create(SessionService.Spec.of(cwd), id -> host);
        s.ready();
        return s;
    }

    private static List<ContentBlock> text(String t) {
        return List.of(ContentBlock.text(t));
    }

    /** The system prompt of the last model request (the first message's content). */
    private String lastSystemPrompt() {
        return model.requests().getLast().body().path("messages").get(0).path("content").asText();
    }

    @Test
    void aFactTheModelSavesIsInTheNextSessionsSystemPrompt() throws Exception {
        FakeHost host = new FakeHost().answer("allow_once");
        Session first = open(host, ws);
        model.enqueue(Script.reply().toolCall("c1", "save_memory",
                        "{\"scope\":\"project\",\"fact\":\"Tests run with ./gradlew check, never mvn\"}"),
                Script.textReply("I will remember that."));

        first.prompt(text("remember how tests run here"), Cancellation.NONE);

        assertFalse(lastSystemPrompt().contains("./gradlew check"), "not in the prompt before it was saved");
        assertEquals(1, host.approvals.size(), "workspace-write asks before the model changes what later sessions are told");
        assertTrue(host.approvals.getFirst().toolCall().title().contains("./gradlew check"), "the question shows the fact");
        assertEquals("completed", host.of(AgentEvent.ToolCallUpdated.class).getLast().status().wire());

        Session next = open(new FakeHost(), ws);
        model.enqueue(Script.textReply("ok"));
        next.prompt(text("run the tests"), Cancellation.NONE);
        String system = lastSystemPrompt();
        assertTrue(system.contains("# Memory"), system);
        assertTrue(system.contains("- Tests run with ./gradlew check, never mvn"), system);
        assertTrue(system.contains("not instructions"), "the prompt says memory is data the user saved");
    }

    @Test
    void aProjectsMemoryIsNotShownInAnotherProjectButTheUsersIs() throws Exception {
        Session s = open(new FakeHost(), ws);
        s.prompt(text("/memory add The build needs JDK 25"), Cancellation.NONE);
        s.prompt(text("/memory add --user I prefer short answers"), Cancellation.NONE);

        Path other = Files.createDirectories(dir.resolve("other"));
        Session elsewhere = open(new FakeHost(), other);
        model.enqueue(Script.textReply("ok"));
        elsewhere.prompt(text("hello"), Cancellation.NONE);
        String system = lastSystemPrompt();
        assertTrue(system.contains("I prefer short answers"), "the user's memory goes everywhere: " + system);
        assertFalse(system.contains("JDK 25"), "another project's memory does not: " + system);

        Session here = open(new FakeHost(), ws);
        model.enqueue(Script.textReply("ok"));
        here.prompt(text("hello"), Cancellation.NONE);
        assertTrue(lastSystemPrompt().contains("- The build needs JDK 25"));
        assertFalse(Files.exists(ws.resolve(".agent")), "project memory is kept outside the workspace");
    }

    @Test
    void memoryCommandShowsAddsAndForgets() throws Exception {
        FakeHost host = new FakeHost();
        Session s = open(host, ws);

        TurnResult added = s.prompt(text("/memory add Use tabs in Makefiles"), Cancellation.NONE);
        assertTrue(added.text().contains("Saved to the project memory"), added.text());
        s.prompt(text("/memory add --user My name is Ada"), Cancellation.NONE);
        TurnResult dup = s.prompt(text("/memory add use tabs in makefiles"), Cancellation.NONE);
        assertTrue(dup.text().contains("already has"), dup.text());

        String shown = s.prompt(text("/memory show"), Cancellation.NONE).text();
        assertTrue(shown.contains("1. My name is Ada"), shown);
        assertTrue(shown.contains("2. Use tabs in Makefiles"), shown);

        String forgot = s.prompt(text("/memory forget tabs"), Cancellation.NONE).text();
        assertTrue(forgot.contains("Forgotten from the project memory: Use tabs in Makefiles"), forgot);
        String byNumber = s.prompt(text("/memory forget 1"), Cancellation.NONE).text();
        assertTrue(byNumber.contains("My name is Ada"), byNumber);
        String empty = s.prompt(text("/memory"), Cancellation.NONE).text();
        assertFalse(empty.contains("Ada") || empty.contains("tabs"), empty);

        assertTrue(model.requests().isEmpty(), "the command is answered without the model");
        assertTrue(host.of(AgentEvent.CommandsChanged.class).getFirst().commands().stream().anyMatch(c -> c.name().equals("memory")));
    }

    @Test
    void handEditsAreReadAndAFullFileRefusesMore() throws Exception {
        Path user = configDir.resolve("memory.md");
        Files.createDirectories(user.getParent());
        StringBuilder sb = new StringBuilder("# Notes I wrote myself\n");
        for (int i = 1; i < 200; i++) sb.append("- fact number ").append(i).append('\n');
        sb.append("- beyond the limit\n");
        Files.writeString(user, sb);
        Session s = open(new FakeHost(), ws);

        String refused = s.prompt(text("/memory add --user one more"), Cancellation.NONE).text();
        assertTrue(refused.contains("full"), refused);
        model.enqueue(Script.textReply("ok"));
        s.prompt(text("hello"), Cancellation.NONE);
        String system = lastSystemPrompt();
        assertTrue(system.contains("# Notes I wrote myself") && system.contains("- fact number 199"), system);
        assertFalse(system.contains("beyond the limit"), "the prompt keeps the first 200 lines");
    }

    @Test
    void aSpaceOrRemoteCallerNeitherSeesNorWritesMemory() throws Exception {
        Session own = open(new FakeHost(), ws);
        own.prompt(text("/memory add --user My home address is private"), Cancellation.NONE);
        own.prompt(text("/memory add The staging password rotates weekly"), Cancellation.NONE);

        FakeHost events = new FakeHost();
        Session remote = open(new Remote(events), ws);
        model.enqueue(Script.reply().toolCall("c1", "save_memory", "{\"scope\":\"user\",\"fact\":\"planted\"}"),
                Script.textReply("ok"));
        remote.prompt(text("hello"), Cancellation.NONE);

        String body = model.requests().getFirst().rawBody();
        assertFalse(body.contains("home address") || body.contains("staging password"), "no memory in its prompt: " + body);
        assertFalse(body.contains("\"save_memory\""), "the tool is not offered");
        assertTrue(model.requests().getLast().rawBody().contains("There is no tool named"), "a call is refused");
        String cmd = remote.prompt(text("/memory show"), Cancellation.NONE).text();
        assertTrue(cmd.contains("keeps no memory") && !cmd.contains("home address"), cmd);
        remote.prompt(text("/memory add --user planted by the caller"), Cancellation.NONE);
        assertFalse(Files.readString(configDir.resolve("memory.md")).contains("planted"));
        assertTrue(events.of(AgentEvent.CommandsChanged.class).getFirst().commands().stream().noneMatch(c -> c.name().equals("memory")));
    }

    /** A door whose other side is not this machine's user (an A2A caller, a space's member). */
    private record Remote(FakeHost events) implements Host {
        @Override public void emit(AgentEvent event) { events.emit(event); }
        @Override public ApprovalAnswer askApproval(ApprovalRequest r, Cancellation c) { return ApprovalAnswer.DISMISSED; }
        @Override public Optional<String> askUser(Question q, Cancellation c) { return Optional.empty(); }
        @Override public boolean keepsMemory() { return false; }
    }
}
