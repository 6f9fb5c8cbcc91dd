package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.TurnResult;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.tools.subagents.TaskTool;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Subagents in-process: the real core with the task tool, the scripted model answering the parent and the child apart
 * (a child's requests carry its own system prompt section), files on disk.
 */
@Timeout(60)
class SubagentsTest {
    @TempDir
    Path dir;
    CoreFixture core;
    FakeModelServer model;
    SessionService sessions;
    Path ws;
    Path configDir;

    @BeforeEach
    void start() throws Exception {
        core = CoreFixture.start(dir);
        model = core.model;
        sessions = core.sessions;
        configDir = core.configDir;
        ws = core.ws;
        sessions.addConnector(new TaskTool(configDir));
    }

    @AfterEach
    void stop() {
        core.close();
    }

    private Session open(FakeHost host) throws CoreException {
        Session s = sessions.create(SessionService.Spec.of(ws), id -> host);
        s.ready();
        return s;
    }

    private static String system(RecordedRequest r) {
        JsonNode first = r.messages().get(0);
        return first.path("content").isTextual() ? first.path("content").asText() : first.path("content").toString();
    }

    private static Predicate<RecordedRequest> child(String agent) {
        return r -> system(r).contains("# Subagent: " + agent);
    }

    private static List<String> toolNames(RecordedRequest r) {
        List<String> names = new ArrayList<>();
        for (JsonNode t : r.tools()) names.add(t.path("function").path("name").asText());
        return names;
    }

    private static String taskDescription(RecordedRequest r) {
        for (JsonNode t : r.tools()) if (t.path("function").path("name").asText().equals("task")) return t.path("function").path("description").asText();
        return null;
    }

    private static String task(String agent, String prompt) {
        return "{\"agent\":\"" + agent + "\",\"description\":\"look something up\",\"prompt\":\"" + prompt + "\"}";
    }

    private List<RecordedRequest> requests(Predicate<RecordedRequest> which) {
        return model.requests().stream().filter(which).toList();
    }

    @Test
    void theChildReadsAFileInItsOwnContextAndTheParentGetsOnlyItsAnswer() throws Exception {
        Files.writeString(ws.resolve("notes.txt"), "the launch code is alpha-beta-gamma-42\n");
        model.when(child("codebase-investigator")).reply(
                Script.reply().toolCall("r1", "read_file", "{\"path\":\"notes.txt\"}").usage(1000, 10),
                Script.reply().text("The code in notes.txt is alpha-beta-gamma-42.").usage(2000, 20));
        model.enqueue(Script.reply().toolCall("t1", "task", task("codebase-investigator", "What is the launch code in notes.txt?")).usage(1, 1),
                Script.reply().text("It is alpha-beta-gamma-42.").usage(1, 1));
        FakeHost host = new FakeHost();
        Session s = open(host);

        TurnResult result = s.prompt(List.of(ContentBlock.text("Find the launch code")), Cancellation.NONE);

        assertEquals(StopReason.END_TURN, result.stopReason());
        RecordedRequest first = model.requests().getFirst();
        assertTrue(taskDescription(first).contains("- codebase-investigator: "), taskDescription(first));
        assertTrue(taskDescription(first).contains("- general-purpose: "), taskDescription(first));
        List<RecordedRequest> childRequests = requests(child("codebase-investigator"));
        assertEquals(2, childRequests.size());
        assertEquals(java.util.Set.of("read_file", "list_directory", "glob", "grep"), java.util.Set.copyOf(toolNames(childRequests.getFirst())),
                "the investigator is offered the read tools only, and no task");
        assertTrue(childRequests.getFirst().lastUserMessage().contains("What is the launch code in notes.txt?"));
        assertFalse(childRequests.getFirst().rawBody().contains("Find the launch code"), "the child does not see the parent's conversation");
        assertTrue(childRequests.getLast().rawBody().contains("the launch code is alpha-beta-gamma-42"), "the child read the file");
        RecordedRequest parentLast = model.requests().getLast();
        assertFalse(child("codebase-investigator").test(parentLast));
        assertTrue(parentLast.rawBody().contains("The code in notes.txt is alpha-beta-gamma-42."), "the child's answer is the task's result");
        assertFalse(parentLast.rawBody().contains("the launch code is alpha-beta-gamma-42"), "the file's text stayed in the child's context");
        String progress = host.of(AgentEvent.ToolCallUpdated.class).stream().filter(u -> u.toolCallId().equals("t1") && u.content() != null)
                .flatMap(u -> u.content().stream()).map(SubagentsTest::text).reduce("", String::concat);
        assertTrue(progress.contains("→ Read notes.txt"), "the task call shows the child's steps: " + progress);
        assertTrue(host.of(AgentEvent.ToolCallStarted.class).stream().noneMatch(t -> t.toolCallId().equals("r1")),
                "the child's own calls are not the parent's tool calls");
        assertEquals(3002, s.usage().input(), "the child's tokens count as the session's");
        assertEquals(4, s.usage().calls());
    }

    private static String text(ToolCallContent c) {
        return c instanceof ToolCallContent.Content t && t.content() instanceof ContentBlock.Text x ? x.text() : "";
    }

    @Test
    void theReadOnlyInvestigatorCannotWriteEvenWhenItCallsAWriteTool() throws Exception {
        model.when(child("codebase-investigator")).reply(
                Script.reply().toolCall("w1", "write_file", "{\"path\":\"planted.txt\",\"content\":\"x\"}"),
                Script.textReply("I could not write."));
        model.enqueue(Script.reply().toolCall("t1", "task", task("codebase-investigator", "Write planted.txt")), Script.textReply("ok"));
        Session s = open(new FakeHost());

        s.prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);

        assertFalse(Files.exists(ws.resolve("planted.txt")), "nothing was written");
        RecordedRequest second = requests(child("codebase-investigator")).getLast();
        assertTrue(second.rawBody().contains("There is no tool named \\\"write_file\\\""), second.rawBody());
        assertTrue(system(second).contains("# Mode: read-only"), "the investigator runs in read-only mode");
    }

    @Test
    void aChildsPermissionQuestionReachesTheUserLabelledWithTheChild() throws Exception {
        model.when(child("general-purpose")).reply(
                Script.reply().toolCall("c1", "run_shell_command", "{\"command\":\"touch made.txt\",\"description\":\"make it\"}"),
                Script.textReply("Made made.txt."));
        model.enqueue(Script.reply().toolCall("t1", "task", task("general-purpose", "Create made.txt")), Script.textReply("ok"));
        FakeHost host = new FakeHost().answer("allow_once");
        Session s = open(host);

        s.prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);

        assertEquals(1, host.approvals.size());
        AgentEvent.ToolCallStarted asked = host.approvals.getFirst().toolCall();
        assertTrue(asked.title().startsWith("[general-purpose] "), asked.title());
        assertTrue(Files.exists(ws.resolve("made.txt")), "the approved command ran");
        assertTrue(host.of(AgentEvent.ToolCallUpdated.class).stream().anyMatch(u -> u.toolCallId().equals(asked.toolCallId())
                && u.status() == ToolCallStatus.COMPLETED), "the call asked about is shown finished");
        List<String> tools = toolNames(requests(child("general-purpose")).getFirst());
        assertTrue(tools.contains("write_file") && !tools.contains("task"), "general-purpose has the tools but task: " + tools);
        assertTrue(model.requests().getLast().rawBody().contains("Made made.txt."));
    }

    @Test
    void undoTakesBackWhatAChildChangedWithTheParentsTurn() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "alpha\n");
        model.when(child("general-purpose")).reply(
                Script.reply().toolCall("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"ALPHA by the child\\n\"}")
                        .toolCall("c2", "write_file", "{\"path\":\"new.txt\",\"content\":\"made by the child\\n\"}"),
                Script.textReply("Changed a.txt and made new.txt."));
        model.enqueue(Script.reply().toolCall("t1", "task", task("general-purpose", "Change the files")), Script.textReply("ok"));
        Session s = open(new FakeHost().answer("allow_always"));
        s.prompt(List.of(ContentBlock.text("first")), Cancellation.NONE);
        assertEquals("ALPHA by the child\n", Files.readString(ws.resolve("a.txt")), "the child wrote");

        String undo = s.prompt(List.of(ContentBlock.text("/undo")), Cancellation.NONE).text();

        assertTrue(undo.contains("Undid turn 1"), "the child's steps are not turns of their own: " + undo);
        assertTrue(undo.contains("`a.txt`") && undo.contains("`new.txt`"), undo);
        assertEquals("alpha\n", Files.readString(ws.resolve("a.txt")), "the child's change is taken back");
        assertFalse(Files.exists(ws.resolve("new.txt")), "the file the child made is gone");
    }

    @Test
    void undoTakesBackWhatTwoChildrenRunningAtOnceChangedWithTheParentsTurn() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "alpha\n");
        Files.writeString(ws.resolve("b.txt"), "beta\n");
        Files.createDirectories(configDir.resolve("agents"));
        Files.writeString(configDir.resolve("agents/doc-writer.md"), "---\nname: doc-writer\ndescription: Writes\ntools: Write, Edit\n---\n");
        model.when(child("general-purpose")).reply(
                Script.reply().toolCall("c0", "run_shell_command", "{\"command\":\"touch started.txt\",\"description\":\"start\"}")
                        .toolCall("c1", "edit", "{\"path\":\"a.txt\",\"old_string\":\"alpha\",\"new_string\":\"ALPHA\"}")
                        .toolCall("c2", "write_file", "{\"path\":\"one.txt\",\"content\":\"made by the first child\\n\"}"),
                Script.textReply("Did one."));
        model.when(child("doc-writer")).reply(
                Script.reply().toolCall("d1", "edit", "{\"path\":\"b.txt\",\"old_string\":\"beta\",\"new_string\":\"BETA\"}")
                        .toolCall("d2", "write_file", "{\"path\":\"two.txt\",\"content\":\"made by the second child\\n\"}"),
                Script.textReply("Did two."));
        model.enqueue(Script.reply().toolCall("t1", "task", task("general-purpose", "Do one"))
                .toolCall("t2", "task", task("doc-writer", "Do two")), Script.textReply("ok"));
        FakeHost host = new FakeHost();
        host.answer("allow_once");
        java.util.concurrent.atomic.AtomicBoolean bothStarted = new java.util.concurrent.atomic.AtomicBoolean();
        // the first child's command waits until the second child is running too: the two run at once
        cn.agentao.agent.core.host.Host door = firstQuestionAwaitsBoth(host, "general-purpose", "doc-writer", bothStarted,
                new java.util.concurrent.atomic.AtomicBoolean());
        Session s = sessions.create(SessionService.Spec.of(ws), id -> door);
        s.ready();
        s.prompt(List.of(ContentBlock.text("first")), Cancellation.NONE);
        assertTrue(bothStarted.get(), "the second child started while the first one was running");
        assertEquals("ALPHA\n", Files.readString(ws.resolve("a.txt")));
        assertEquals("BETA\n", Files.readString(ws.resolve("b.txt")));

        String undo = s.prompt(List.of(ContentBlock.text("/undo")), Cancellation.NONE).text();

        assertTrue(undo.contains("Undid turn 1 (“first”)"), "the children's steps are part of the parent's turn: " + undo);
        for (String f : List.of("a.txt", "b.txt", "one.txt", "two.txt")) assertTrue(undo.contains("`" + f + "`"), f + " named: " + undo);
        assertEquals("alpha\n", Files.readString(ws.resolve("a.txt")), "the first child's edit is taken back");
        assertEquals("beta\n", Files.readString(ws.resolve("b.txt")), "the second child's edit is taken back");
        assertFalse(Files.exists(ws.resolve("one.txt")) || Files.exists(ws.resolve("two.txt")), "the files the children made are gone");
        assertTrue(s.prompt(List.of(ContentBlock.text("/undo")), Cancellation.NONE).text().startsWith("Nothing to undo"),
                "the children numbered no turns of their own");
    }

    @Test
    void cancellingTheParentsTurnStopsTheChild() throws Exception {
        model.when(child("general-purpose")).reply(Script.reply().hang());
        model.enqueue(Script.reply().toolCall("t1", "task", task("general-purpose", "Think forever")));
        FakeHost host = new FakeHost();
        Session s = open(host);

        CompletableFuture<TurnResult> turn = promptInBackground(s);
        RecordedRequest childRequest = awaitRequest(child("general-purpose"));
        assertTrue(s.cancel());

        assertEquals(StopReason.CANCELLED, turn.get().stopReason());
        assertTrue(childRequest.awaitClientDisconnect(Duration.ofSeconds(20)), "the child's model request was abandoned");
        AgentEvent.ToolCallUpdated last = host.of(AgentEvent.ToolCallUpdated.class).stream().filter(u -> u.toolCallId().equals("t1"))
                .reduce((a, b) -> b).orElseThrow();
        assertEquals(ToolCallStatus.FAILED, last.status());
    }

    @Test
    void twoChildrenOfOneAnswerRunAtOnceAndOneCancelEndsBoth() throws Exception {
        // each child's model call hangs: the second child's request can only arrive while the first's is still open
        model.when(child("general-purpose")).reply(Script.reply().hang());
        model.when(child("codebase-investigator")).reply(Script.reply().hang());
        model.enqueue(Script.reply().toolCall("t1", "task", task("general-purpose", "First job"))
                .toolCall("t2", "task", task("codebase-investigator", "Second job")));
        FakeHost host = new FakeHost();
        Session s = open(host);

        CompletableFuture<TurnResult> turn = promptInBackground(s);
        RecordedRequest first = awaitRequest(child("general-purpose"));
        RecordedRequest second = awaitRequest(child("codebase-investigator"));
        assertTrue(s.cancel());

        assertEquals(StopReason.CANCELLED, turn.get().stopReason());
        assertTrue(first.awaitClientDisconnect(Duration.ofSeconds(20)), "the first child's model request was abandoned");
        assertTrue(second.awaitClientDisconnect(Duration.ofSeconds(20)), "the second child's model request was abandoned");
        for (String id : List.of("t1", "t2")) {
            AgentEvent.ToolCallUpdated last = host.of(AgentEvent.ToolCallUpdated.class).stream().filter(u -> u.toolCallId().equals(id))
                    .reduce((a, b) -> b).orElseThrow();
            assertEquals(ToolCallStatus.FAILED, last.status(), id);
        }
        List<AgentEvent.SubagentChanged> stopped = host.of(AgentEvent.SubagentChanged.class).stream().filter(c -> c.state().equals("idle")).toList();
        assertEquals(2, stopped.size(), "both children stopped: " + stopped);
        assertTrue(stopped.stream().allMatch(c -> c.stopReason() == StopReason.CANCELLED), stopped.toString());
    }

    @Test
    void childrenOfOneAnswerReportInTheAnswersOrderAndAskOneAtATime() throws Exception {
        model.when(child("general-purpose")).reply(
                Script.reply().toolCall("c1", "run_shell_command", "{\"command\":\"touch one.txt\",\"description\":\"one\"}"),
                Script.textReply("Made one."));
        model.when(child("doc-writer")).reply(
                Script.reply().toolCall("c2", "run_shell_command", "{\"command\":\"touch two.txt\",\"description\":\"two\"}"),
                Script.textReply("Made two."));
        Files.createDirectories(configDir.resolve("agents"));
        Files.writeString(configDir.resolve("agents/doc-writer.md"), "---\nname: doc-writer\ndescription: Writes\ntools: Bash\n---\n");
        model.enqueue(Script.reply().toolCall("t1", "task", task("general-purpose", "Make one"))
                .toolCall("t2", "task", task("doc-writer", "Make two")), Script.textReply("ok"));
        FakeHost host = new FakeHost().answer("allow_once").answer("allow_once");
        java.util.concurrent.atomic.AtomicBoolean overlapped = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean bothStarted = new java.util.concurrent.atomic.AtomicBoolean();
        // the first question stays open until the other child's model request has arrived: only a child running beside
        // the one asking can make it
        cn.agentao.agent.core.host.Host door = firstQuestionAwaitsBoth(host, "general-purpose", "doc-writer", bothStarted, overlapped);
        Session s = sessions.create(SessionService.Spec.of(ws), id -> door);
        s.ready();

        s.prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);

        assertTrue(bothStarted.get(), "the second child started while the first one's question was open");
        assertEquals(2, host.approvals.size());
        assertFalse(overlapped.get(), "the user is asked one question at a time");
        assertTrue(Files.exists(ws.resolve("one.txt")) && Files.exists(ws.resolve("two.txt")));
        String body = model.requests().getLast().rawBody();
        assertTrue(body.indexOf("Made one.") >= 0 && body.indexOf("Made one.") < body.indexOf("Made two."),
                "the results come back in the order of the calls: " + body);
    }

    /**
     * {@code host} at the door, but its first approval question is held until children of agents {@code a} and
     * {@code b} have both sent a model request ({@code bothStarted}: whether they did); {@code overlapped} is set when
     * two questions are open at once.
     */
    private cn.agentao.agent.core.host.Host firstQuestionAwaitsBoth(FakeHost host, String a, String b,
            java.util.concurrent.atomic.AtomicBoolean bothStarted, java.util.concurrent.atomic.AtomicBoolean overlapped) {
        java.util.concurrent.atomic.AtomicInteger asking = new java.util.concurrent.atomic.AtomicInteger();
        return new cn.agentao.agent.core.host.Host() {
            @Override public void emit(AgentEvent event) { host.emit(event); }

            @Override
            public cn.agentao.agent.core.host.ApprovalAnswer askApproval(cn.agentao.agent.core.host.ApprovalRequest r, Cancellation c)
                    throws cn.agentao.agent.util.CancelledException {
                if (asking.incrementAndGet() > 1) overlapped.set(true);
                try {
                    if (host.approvals.isEmpty()) bothStarted.set(awaitBoth(a, b));
                    return host.askApproval(r, c);
                } finally {
                    asking.decrementAndGet();
                }
            }

            @Override
            public java.util.Optional<String> askUser(cn.agentao.agent.core.host.Question q, Cancellation c) { return host.askUser(q, c); }
        };
    }

    /** Waits until both agents' children have sent a model request; false when the requests stop coming first. */
    private boolean awaitBoth(String a, String b) {
        try {
            for (int n = 1; ; n++) {
                model.awaitRequests(n, Duration.ofSeconds(30));
                if (!requests(child(a)).isEmpty() && !requests(child(b)).isEmpty()) return true;
                if (model.requests().size() < n) return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static CompletableFuture<TurnResult> promptInBackground(Session s) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return s.prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);
            } catch (CoreException.Busy e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private RecordedRequest awaitRequest(Predicate<RecordedRequest> which) throws InterruptedException {
        for (int n = 1; ; n++) {
            model.awaitRequests(n, Duration.ofSeconds(30));
            List<RecordedRequest> found = requests(which);
            if (!found.isEmpty()) return found.getFirst();
            if (model.requests().size() < n) fail("no request came");
        }
    }

    /** A core of its own whose config.json holds {@code configJson}, with the subagents that config chooses. */
    private CoreFixture coreWithConfig(String name, String configJson) throws Exception {
        CoreFixture other = CoreFixture.start(dir.resolve(name));
        Files.createDirectories(other.configDir);
        Files.writeString(other.configDir.resolve("config.json"), configJson);
        other.sessions.addConnector(TaskTool.of(cn.agentao.agent.config.AgentConfig.load(CoreFixture.environment(dir.resolve(name), other.model))));
        return other;
    }

    @Test
    void agentaosFormOffersEachAgentAsAToolOfItsOwnBesideTaskWhenConfigured() throws Exception {
        try (CoreFixture both = coreWithConfig("both", "{\"subagents\":{\"tools\":\"both\"}}")) {
            both.model.when(r -> system(r).contains("# Subagent: general-purpose")).reply(Script.textReply("The code is alpha-beta-gamma-42."));
            both.model.enqueue(Script.reply().toolCall("a1", "agent_general_purpose", "{\"task\":\"What is the launch code?\"}"),
                    Script.textReply("ok"));
            FakeHost host = new FakeHost();
            Session s = both.open(host);

            s.prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);

            List<String> tools = toolNames(both.model.requests().getFirst());
            assertTrue(tools.containsAll(List.of("task", "agent_general_purpose", "agent_codebase_investigator")), tools.toString());
            RecordedRequest childRequest = both.model.requests().stream().filter(child("general-purpose")).findFirst().orElseThrow();
            assertTrue(childRequest.lastUserMessage().contains("What is the launch code?"));
            List<String> childTools = toolNames(childRequest);
            assertTrue(childTools.contains("read_file") && childTools.stream().noneMatch(t -> t.equals("task") || t.startsWith("agent_")),
                    "the general agent has every tool but those that start a child: " + childTools);
            assertTrue(both.model.requests().getLast().rawBody().contains("The code is alpha-beta-gamma-42."), "the agent's answer is the result");
            assertEquals("Agent general-purpose", host.of(AgentEvent.ToolCallStarted.class).stream()
                    .filter(t -> t.toolCallId().equals("a1")).findFirst().orElseThrow().title());
        }
        // the default offers task alone; a bad value says so and keeps the default
        model.enqueue(Script.textReply("ok"));
        open(new FakeHost()).prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);
        assertFalse(toolNames(model.requests().getLast()).stream().anyMatch(t -> t.startsWith("agent_")), "task is the default form");
        try (CoreFixture bad = coreWithConfig("bad", "{\"subagents\":{\"tools\":\"each\"}}")) {
            bad.model.enqueue(Script.textReply("ok"));
            FakeHost host = new FakeHost();
            bad.open(host).prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);
            List<String> tools = toolNames(bad.model.requests().getLast());
            assertTrue(tools.contains("task") && tools.stream().noneMatch(t -> t.startsWith("agent_")), tools.toString());
            assertTrue(host.of(AgentEvent.Notice.class).stream().anyMatch(n -> n.text().contains("subagents.tools")
                    && n.text().contains("\"per-agent\"")), "the user is told what is wrong");
        }
    }

    private static final String HELPER = """
            ---
            name: doc-writer
            description: Writes the project's documentation
            tools: Read, Grep, Write
            max_turns: 3
            ---
            Write plain English.
            """;

    @Test
    void anUntrustedProjectsAgentIsNotLoadedATrustedOnesIs() throws Exception {
        Files.createDirectories(ws.resolve(".agent/agents"));
        Files.writeString(ws.resolve(".agent/agents/doc-writer.md"), HELPER);
        model.enqueue(Script.reply().toolCall("t1", "task", task("doc-writer", "Document it")), Script.textReply("ok"));
        FakeHost host = new FakeHost();
        Session s = open(host);

        s.prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);

        assertFalse(taskDescription(model.requests().getFirst()).contains("doc-writer"));
        assertTrue(model.requests().getLast().rawBody().contains("there is no agent 'doc-writer'"));
        assertTrue(host.of(AgentEvent.Notice.class).stream().anyMatch(n -> n.text().contains("not trusted")), "the user is told why");
        assertTrue(requests(child("doc-writer")).isEmpty());

        new TrustedProjects(configDir.resolve(ConfigLocations.TRUSTED_PROJECTS)).record(ws, true, null);
        model.reset();
        model.whenEmptyFail();
        model.when(child("doc-writer")).reply(Script.textReply("Documented."));
        model.enqueue(Script.reply().toolCall("t2", "task", task("doc-writer", "Document it")), Script.textReply("ok"));
        Session trusted = open(new FakeHost());
        trusted.prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);

        assertTrue(taskDescription(model.requests().getFirst()).contains("- doc-writer: Writes the project's documentation (tools: read_file, grep, write_file)"));
        RecordedRequest childRequest = requests(child("doc-writer")).getFirst();
        assertEquals(java.util.Set.of("read_file", "grep", "write_file"), java.util.Set.copyOf(toolNames(childRequest)));
        assertTrue(system(childRequest).contains("Write plain English."), "the body is the child's instructions");
        assertTrue(model.requests().getLast().rawBody().contains("Documented."));
    }

    @Test
    void aChildStopsAtItsTurnLimitAndTheParentIsToldSo() throws Exception {
        Files.createDirectories(configDir.resolve("agents"));
        Files.writeString(configDir.resolve("agents/looper.md"), "---\nname: looper\ndescription: Loops\ntools: [glob]\nmax_turns: 2\n---\n");
        model.when(child("looper")).replyAlways(Script.reply().toolCall("g", "glob", "{\"pattern\":\"*\"}"));
        model.enqueue(Script.reply().toolCall("t1", "task", task("looper", "Loop")), Script.textReply("ok"));
        Session s = open(new FakeHost());

        s.prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);

        assertEquals(2, requests(child("looper")).size(), "max_turns bounds the child's model calls");
        assertTrue(model.requests().getLast().rawBody().contains("it reached its limit of 2 model calls"), model.requests().getLast().rawBody());
    }
}
