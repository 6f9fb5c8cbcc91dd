package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.content.TurnResult;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The core in-process: a {@link FakeHost} as the front door, the scripted model over HTTP, the real session
 * store, tools and permission engine. What any front door (ACP, terminal, A2A) relies on.
 */
@Timeout(60)
class CoreSessionTest {
    @TempDir
    Path dir;
    FakeModelServer model;
    SessionService sessions;
    Path ws;

    CoreFixture core;

    @BeforeEach
    void start() throws Exception {
        core = CoreFixture.start(dir);
        model = core.model;
        sessions = core.sessions;
        ws = core.ws;
    }

    @AfterEach
    void stop() {
        core.close();
    }

    private Session open(FakeHost host) throws CoreException {
        return core.open(host);
    }

    private static List<ContentBlock> text(String t) {
        return CoreFixture.text(t);
    }

    // ---------------------------------------------------------------- the turn loop

    @Test
    void aPromptStreamsTheAnswerAsEventsAndReturnsIt() throws Exception {
        FakeHost host = new FakeHost();
        Session s = open(host);
        model.enqueue(Script.reply().reasoning("thinking").text("Hel", "lo ", "there").usage(12, 3));

        TurnResult r = s.prompt(text("Say hello"), Cancellation.NONE);

        assertEquals(StopReason.END_TURN, r.stopReason());
        assertEquals("Hello there", r.text());
        assertEquals("Hello there", host.text());
        assertFalse(host.of(AgentEvent.ThoughtChunk.class).isEmpty(), "reasoning streams as thought chunks");
        assertEquals("Say hello", host.of(AgentEvent.TitleChanged.class).getFirst().title());
        assertNotNull(r.usage(), "the model's usage is reported");
        assertEquals(15, r.usage().used());
        assertFalse(host.of(AgentEvent.CommandsChanged.class).isEmpty(), "ready() sends the command list");
        assertNull(r.error());
    }

    @Test
    void aFailingModelIsExplainedAndTheTurnSaysItFailed() throws Exception {
        FakeHost host = new FakeHost();
        Session s = open(host);
        model.enqueue(Script.httpError(401, null));

        TurnResult r = s.prompt(text("hi"), Cancellation.NONE);

        assertEquals(StopReason.END_TURN, r.stopReason());
        assertNotNull(r.error(), "a headless door can tell a failure from an answer");
        assertTrue(host.text().contains("Error: "), host.text());
    }

    @Test
    void aSecondTurnWhileOneRunsIsRefused() throws Exception {
        Session s = open(new FakeHost());
        Session.Turn turn = s.beginTurn();
        CoreException.Busy busy = assertThrows(CoreException.Busy.class, () -> s.prompt(text("again"), Cancellation.NONE));
        assertTrue(busy.getMessage().contains("active turn"), busy.getMessage());
        model.enqueue(Script.textReply("done"));
        assertEquals(StopReason.END_TURN, turn.run(text("first")).stopReason());
        model.enqueue(Script.textReply("next"));
        assertEquals("next", s.prompt(text("then"), Cancellation.NONE).text(), "the slot is free again after a turn");
    }

    @Test
    void cancellingMidStreamEndsTheTurnCancelled() throws Exception {
        FakeHost host = new FakeHost();
        Session s = open(host);
        model.enqueue(Script.reply().text("partial ").hang()); // only the cancel ends this turn
        CancellationSource cancel = new CancellationSource();
        CompletableFuture<TurnResult> turn = CompletableFuture.supplyAsync(() -> {
            try {
                return s.prompt(text("long answer please"), cancel);
            } catch (CoreException.Busy e) {
                throw new AssertionError(e);
            }
        });
        waitFor(() -> host.text().contains("partial"));
        cancel.cancel();
        assertEquals(StopReason.CANCELLED, turn.get().stopReason());
        assertFalse(s.hasActiveTurn());
    }

    @Test
    void unknownSettingsAndModesAreRefusedNamingWhatIsValid() throws Exception {
        FakeHost host = new FakeHost();
        Session s = open(host);
        CoreException.InvalidArgument bad = assertThrows(CoreException.InvalidArgument.class, () -> s.setMode("yolo"));
        assertTrue(bad.getMessage().contains("workspace-write"), bad.getMessage());
        assertThrows(CoreException.NotFound.class, () -> s.set("colour", "blue"));
        s.setMode("plan");
        assertEquals("plan", s.modeId());
        assertEquals("plan", host.of(AgentEvent.ModeChanged.class).getLast().modeId());
        assertEquals("plan", host.of(AgentEvent.SettingsChanged.class).getLast().settings().getFirst().currentValue());
    }

    // ---------------------------------------------------------------- approvals, through a tool source

    /** A tool from a session's own source that changes something (a marker file), so it is asked about. */
    private static final class MarkerTool implements Tool {
        final Path marker;

        MarkerTool(Path marker) { this.marker = marker; }

        @Override public String name() { return "make_marker"; }
        @Override public String description() { return "Creates the marker file."; }
        @Override public ObjectNode inputSchema() { return Json.object().put("type", "object"); }
        @Override public ToolKind kind() { return ToolKind.EDIT; }

        @Override
        public ToolInvocation prepare(JsonNode args, ToolContext ctx) {
            return new ToolInvocation() {
                @Override public String title() { return "Make the marker"; }
                @Override public List<cn.agentao.agent.core.content.ToolCallLocation> locations() { return List.of(); }
                @Override public PermissionRequest permission() { return new PermissionRequest.Generic("make_marker", false, false); }
                @Override public ToolResult run(cn.agentao.agent.core.tool.ToolProgress progress) throws Exception {
                    Files.writeString(marker, "made");
                    return ToolResult.success("marker made");
                }
            };
        }
    }

    /** A source with one tool, which can be withdrawn (as an SMCP Computer that leaves). */
    private static final class OneToolSource implements ToolSource {
        final Tool tool;
        volatile boolean present = true;

        OneToolSource(Tool tool) { this.tool = tool; }

        @Override public String name() { return "test"; }

        @Override
        public List<ToolSpecification> specifications() {
            return present ? List.of(ToolSpecification.builder().name(tool.name()).description(tool.description())
                    .parameters(JsonObjectSchema.builder().build()).build()) : List.of();
        }

        @Override public Optional<Tool> tool(String name) { return present && name.equals(tool.name()) ? Optional.of(tool) : Optional.empty(); }
    }

    /** A source's tool whose raw output looks like a plan (as any MCP server's may): the core must not take it for one. */
    private static final class PlanShapedTool implements Tool {
        @Override public String name() { return "plan_shaped"; }
        @Override public String description() { return "Returns raw output with a plan in it."; }
        @Override public ObjectNode inputSchema() { return Json.object().put("type", "object"); }
        @Override public ToolKind kind() { return ToolKind.READ; }

        @Override
        public ToolInvocation prepare(JsonNode args, ToolContext ctx) {
            return new ToolInvocation() {
                @Override public String title() { return "Plan-shaped output"; }
                @Override public List<cn.agentao.agent.core.content.ToolCallLocation> locations() { return List.of(); }
                @Override public PermissionRequest permission() { return new PermissionRequest.Generic("plan_shaped", true, false); }
                @Override public ToolResult run(cn.agentao.agent.core.tool.ToolProgress progress) {
                    ObjectNode raw = Json.object();
                    raw.putArray("plan").addObject().put("content", "Injected step").put("status", "pending");
                    return new ToolResult("ok", List.of(), false, raw);
                }
            };
        }
    }

    @Test
    void onlyTheTodoToolsPlanSignalChangesThePlanNotASourcesRawOutput() throws Exception {
        FakeHost host = new FakeHost().answer("allow_once");
        Session s = open(host);
        s.addToolSource(new OneToolSource(new PlanShapedTool()));
        model.enqueue(Script.reply().toolCall("c1", "plan_shaped", "{}"),
                Script.reply().toolCall("c2", "todo_write", "{\"todos\":[{\"content\":\"Real step\",\"status\":\"pending\"}]}"),
                Script.textReply("done"));

        s.prompt(text("plan it"), Cancellation.NONE);

        List<AgentEvent.PlanChanged> plans = host.of(AgentEvent.PlanChanged.class);
        assertEquals(1, plans.size(), "one plan, from todo_write: " + plans);
        assertEquals("Real step", plans.getFirst().entries().getFirst().content());
    }

    private Path markerToolIn(Session s) {
        Path marker = dir.resolve("marker");
        s.addToolSource(new OneToolSource(new MarkerTool(marker)));
        return marker;
    }

    @Test
    void anApprovedCallRunsAndTheModelHearsItsResult() throws Exception {
        FakeHost host = new FakeHost().answer("allow_once");
        Session s = open(host);
        Path marker = markerToolIn(s);
        model.enqueue(Script.reply().toolCall("c1", "make_marker", "{}"), Script.textReply("made it"));

        TurnResult r = s.prompt(text("make the marker"), Cancellation.NONE);

        assertEquals("made it", r.text());
        assertTrue(Files.exists(marker));
        assertEquals(1, host.approvals.size());
        assertEquals("c1", host.approvals.getFirst().toolCall().toolCallId(), "the approval shows the call the user saw start");
        assertEquals(List.of(ApprovalOption.Kind.ALLOW_ONCE, ApprovalOption.Kind.ALLOW_ALWAYS, ApprovalOption.Kind.REJECT_ONCE,
                ApprovalOption.Kind.REJECT_ALWAYS), host.approvals.getFirst().options().stream().map(ApprovalOption::kind).toList());
        assertTrue(model.requests().getLast().rawBody().contains("marker made"), "the model gets the tool's result");
        assertTrue(model.requests().getFirst().rawBody().contains("make_marker"), "the source's tool is offered to the model");
    }

    @Test
    void aRejectedCallDoesNotRun() throws Exception {
        FakeHost host = new FakeHost().answer("reject_once");
        Session s = open(host);
        Path marker = markerToolIn(s);
        model.enqueue(Script.reply().toolCall("c1", "make_marker", "{}"), Script.textReply("ok, not doing it"));

        s.prompt(text("make the marker"), Cancellation.NONE);

        assertFalse(Files.exists(marker), "a rejected call has no effect");
        assertTrue(model.requests().getLast().rawBody().contains("rejected"), model.requests().getLast().rawBody());
        AgentEvent.ToolCallUpdated last = host.of(AgentEvent.ToolCallUpdated.class).getLast();
        assertEquals("failed", last.status().wire());
    }

    @Test
    void allowAlwaysIsRememberedForTheSession() throws Exception {
        FakeHost host = new FakeHost().answer("allow_always");
        Session s = open(host);
        Path marker = markerToolIn(s);
        model.enqueue(Script.reply().toolCall("c1", "make_marker", "{}"), Script.textReply("once"),
                Script.reply().toolCall("c2", "make_marker", "{}"), Script.textReply("twice"));

        s.prompt(text("make the marker"), Cancellation.NONE);
        Files.delete(marker);
        TurnResult second = s.prompt(text("again"), Cancellation.NONE);

        assertEquals("twice", second.text());
        assertTrue(Files.exists(marker), "the second call ran");
        assertEquals(1, host.approvals.size(), "the second call was not asked about");
    }

    @Test
    void cancellingWhileTheUserIsAskedEndsTheTurnWithoutRunningTheCall() throws Exception {
        FakeHost host = new FakeHost(); // never answers
        Session s = open(host);
        Path marker = markerToolIn(s);
        model.enqueue(Script.reply().toolCall("c1", "make_marker", "{}"));
        CancellationSource cancel = new CancellationSource();
        CompletableFuture<TurnResult> turn = CompletableFuture.supplyAsync(() -> {
            try {
                return s.prompt(text("make the marker"), cancel);
            } catch (CoreException.Busy e) {
                throw new AssertionError(e);
            }
        });
        assertTrue(host.awaitApproval(Duration.ofSeconds(30)));
        cancel.cancel();

        assertEquals(StopReason.CANCELLED, turn.get().stopReason());
        assertFalse(Files.exists(marker));
    }

    @Test
    void aSourceCanWithdrawItsToolsBetweenModelCalls() throws Exception {
        FakeHost host = new FakeHost().answer("allow_once");
        Session s = open(host);
        OneToolSource source = new OneToolSource(new MarkerTool(dir.resolve("marker")));
        s.addToolSource(source);
        model.enqueue(Script.textReply("first"), Script.textReply("second"));

        s.prompt(text("one"), Cancellation.NONE);
        source.present = false;
        s.prompt(text("two"), Cancellation.NONE);

        List<RecordedRequest> requests = model.requests();
        assertTrue(requests.get(0).rawBody().contains("make_marker"));
        assertFalse(requests.get(1).rawBody().contains("make_marker"), "a withdrawn tool is no longer offered");
        assertTrue(requests.get(1).rawBody().contains("read_file"), "the built-ins still are");
    }

    @Test
    void askUserGoesToTheHostAndTheAnswerToTheModel() throws Exception {
        FakeHost host = new FakeHost().reply(Optional.of("blue"));
        Session s = open(host);
        model.enqueue(Script.reply().toolCall("q1", "ask_user", "{\"question\":\"Which colour?\",\"options\":[\"red\",\"blue\"]}"),
                Script.textReply("blue it is"));

        s.prompt(text("pick a colour with me"), Cancellation.NONE);

        assertEquals("Which colour?", host.questions.getFirst().text());
        assertEquals(List.of("red", "blue"), host.questions.getFirst().options());
        assertTrue(model.requests().getLast().rawBody().contains("blue"), "the answer reaches the model");
    }

    @Test
    void theUsersOwnCommandRunsAsAToolCallAndJoinsTheConversation() throws Exception {
        FakeHost host = new FakeHost().answer("allow_once");
        Session s = open(host);
        Files.writeString(ws.resolve("notes.txt"), "kept in the workspace");

        TurnResult r = s.runUserCommand("cat notes.txt", Cancellation.NONE);

        assertEquals(StopReason.END_TURN, r.stopReason());
        assertTrue(r.text().contains("kept in the workspace"), r.text());
        assertEquals(ToolKind.EXECUTE, host.of(AgentEvent.ToolCallStarted.class).getFirst().kind(), "shown like the model's commands");
        model.enqueue(Script.textReply("I see the notes."));
        s.prompt(text("what did the file say?"), Cancellation.NONE);
        assertTrue(model.requests().getLast().rawBody().contains("kept in the workspace"), "the output joins the history");
    }

    // ---------------------------------------------------------------- lifecycle and replay

    @Test
    void aReopenedSessionReplaysThroughTheHostAndKeepsItsHistory() throws Exception {
        Session first = open(new FakeHost());
        String id = first.id();
        model.enqueue(Script.textReply("The answer is 42."));
        first.prompt(text("What is the answer?"), Cancellation.NONE);
        first.close();
        assertTrue(sessions.find(id).isEmpty(), "a closed session is no longer live");

        FakeHost again = new FakeHost();
        Session reopened = sessions.reopen(id, SessionService.Spec.of(ws), again, true);

        assertEquals("What is the answer?", ((ContentBlock.Text) again.of(AgentEvent.UserMessage.class).getFirst().content()).text());
        assertEquals("The answer is 42.", again.text());
        assertEquals("What is the answer?", again.of(AgentEvent.TitleChanged.class).getLast().title());
        model.enqueue(Script.textReply("Still 42."));
        reopened.prompt(text("And now?"), Cancellation.NONE);
        assertTrue(model.requests().getLast().rawBody().contains("The answer is 42."), "the model history was restored");
    }

    @Test
    void aForkOfALiveSessionKeepsItsHistoryAndThenGoesItsOwnWay() throws Exception {
        Session parent = open(new FakeHost());
        model.enqueue(Script.textReply("The answer is 42."));
        parent.prompt(text("What is the answer?"), Cancellation.NONE);

        FakeHost forkHost = new FakeHost();
        Session fork = sessions.fork(parent.id(), SessionService.Spec.of(ws), id -> forkHost);
        assertNotEquals(parent.id(), fork.id());
        model.enqueue(Script.textReply("On the fork."));
        fork.prompt(text("Fork question"), Cancellation.NONE);
        assertTrue(model.requests().getLast().rawBody().contains("The answer is 42."), "the fork has the parent's history");

        model.enqueue(Script.textReply("On the parent."));
        parent.prompt(text("Parent question"), Cancellation.NONE);
        assertFalse(model.requests().getLast().rawBody().contains("Fork question"), "the parent does not see the fork's turns");
        fork.close();
        FakeHost replay = new FakeHost();
        sessions.reopen(fork.id(), SessionService.Spec.of(ws), replay, true);
        assertTrue(replay.text().contains("The answer is 42.") && replay.text().contains("On the fork."), replay.text());
        assertFalse(replay.text().contains("On the parent."), replay.text());
        assertThrows(CoreException.NotFound.class, () -> sessions.fork("no-such-session", SessionService.Spec.of(ws), id -> new FakeHost()));
    }

    @Test
    void aLiveSessionCannotBeOpenedTwiceAndUnknownOnesAreNotFound() throws Exception {
        Session s = open(new FakeHost());
        assertThrows(CoreException.Busy.class, () -> sessions.reopen(s.id(), SessionService.Spec.of(ws), new FakeHost(), false));
        assertThrows(CoreException.NotFound.class, () -> sessions.reopen("no-such-session", SessionService.Spec.of(ws), new FakeHost(), false));
        assertThrows(CoreException.NotFound.class, () -> sessions.close("no-such-session"));
    }

    @Test
    void aDoorMayChooseTheIdOfANewSession() throws Exception {
        Session s = sessions.createWithId("context-42", SessionService.Spec.of(ws), new FakeHost());
        model.enqueue(Script.textReply("noted"));
        s.prompt(text("remember the context"), Cancellation.NONE);
        assertThrows(CoreException.Busy.class, () -> sessions.createWithId("context-42", SessionService.Spec.of(ws), new FakeHost()));
        s.close();
        CoreException.Busy taken = assertThrows(CoreException.Busy.class,
                () -> sessions.createWithId("context-42", SessionService.Spec.of(ws), new FakeHost()));
        assertTrue(taken.getMessage().contains("reopen"), taken.getMessage());
        FakeHost again = new FakeHost();
        sessions.reopen("context-42", SessionService.Spec.of(ws), again, true);
        assertEquals("noted", again.text(), "the chosen id is one durable session");
        assertThrows(CoreException.InvalidArgument.class,
                () -> sessions.createWithId("../outside", SessionService.Spec.of(ws), new FakeHost()));
    }

    @Test
    void latestListAndDelete() throws Exception {
        Session a = open(new FakeHost());
        model.enqueue(Script.textReply("ok"));
        a.prompt(text("remember me"), Cancellation.NONE);
        a.close();
        assertEquals(a.id(), sessions.latest(ws));
        assertTrue(sessions.list(ws, null, 10).items().stream().anyMatch(x -> x.sessionId().equals(a.id())));
        sessions.delete(a.id());
        assertThrows(CoreException.NotFound.class, () -> sessions.latest(ws));
        assertThrows(CoreException.NotFound.class, () -> sessions.delete(a.id()));
    }

    @Test
    void noticesWaitUntilTheSessionIsReady() throws Exception {
        FakeHost host = new FakeHost();
        Session s = sessions.create(SessionService.Spec.of(ws), id -> host);
        s.notice("something to know");
        assertTrue(host.of(AgentEvent.Notice.class).isEmpty(), "nothing before ready()");
        s.ready();
        assertEquals("something to know", host.of(AgentEvent.Notice.class).getFirst().text());
        int commands = host.events.indexOf(host.of(AgentEvent.CommandsChanged.class).getFirst());
        assertTrue(commands < host.events.indexOf(host.of(AgentEvent.Notice.class).getFirst()), "the command list comes first");
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) fail("timed out");
            Thread.sleep(20);
        }
    }
}
