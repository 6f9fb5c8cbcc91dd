package cn.agentao.agent.core;

import cn.agentao.agent.cli.ToolCalls;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.store.postgres.PostgresSessionRepository;
import cn.agentao.agent.store.postgres.PostgresStoreConfig;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.PostgresServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Two instances (two engines and session services, each with its own connections) on one PostgreSQL database, as two
 * {@code a2a serve} processes behind a load balancer: a session is leased per turn, so either continues what the
 * other answered, and a turn on one keeps the other out until it ends.
 */
@Timeout(120)
class SharedSessionIT {
    @TempDir
    Path dir;
    FakeModelServer model;
    PostgresSessionRepository storeA;
    PostgresSessionRepository storeB;
    SessionService a;
    SessionService b;
    Path ws;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        PostgresStoreConfig db = PostgresServer.shared().freshDatabase();
        storeA = new PostgresSessionRepository(db);
        storeB = new PostgresSessionRepository(db);
        a = service(storeA, "a");
        b = service(storeB, "b");
        ws = Files.createDirectories(dir.resolve("ws"));
    }

    private SessionService service(PostgresSessionRepository store, String name) {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("HOME", dir.resolve("home-" + name).toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config-" + name).toString());
        env.put("AGENT_SANDBOX", "none");
        Path configDir = ConfigLocations.userConfigDir(env);
        return new SessionService(new Engine(cn.agentao.agent.config.AgentConfig.load(env), ToolCalls.create(cn.agentao.agent.config.AgentConfig.load(env))), store);
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
        storeA.close();
        storeB.close();
        model.close();
    }

    private static List<ContentBlock> text(String t) {
        return List.of(ContentBlock.text(t));
    }

    private Session reopen(SessionService service, String id) throws CoreException {
        Session s = service.reopen(id, SessionService.Spec.of(ws), new FakeHost(), false);
        s.ready();
        return s;
    }

    /** The user messages the model was sent in its latest request, in order. */
    private List<String> userMessagesOfLastRequest() {
        RecordedRequest r = model.lastRequest();
        return java.util.stream.StreamSupport.stream(r.messages().spliterator(), false)
                .filter(m -> m.path("role").asText().equals("user"))
                .map(m -> m.path("content").isTextual() ? m.path("content").asText() : m.path("content").toString())
                .toList();
    }

    @Test
    void eitherInstanceContinuesWhatTheOtherAnswered() throws Exception {
        Session onA = a.create(SessionService.Spec.of(ws), id -> new FakeHost());
        onA.ready();
        model.enqueue(Script.textReply("one on A"));
        assertEquals(StopReason.END_TURN, onA.prompt(text("first, on A"), Cancellation.NONE).stopReason());
        assertFalse(storeA.isLive(onA.id()), "between turns no instance holds the session");

        Session onB = reopen(b, onA.id()); // while it is still open on A
        model.enqueue(Script.textReply("two on B"));
        assertEquals(StopReason.END_TURN, onB.prompt(text("second, on B"), Cancellation.NONE).stopReason());
        List<String> seenByB = userMessagesOfLastRequest();
        assertTrue(seenByB.stream().anyMatch(m -> m.contains("first, on A")), "B continues A's conversation: " + seenByB);

        model.enqueue(Script.textReply("three on A"));
        assertEquals(StopReason.END_TURN, onA.prompt(text("third, on A"), Cancellation.NONE).stopReason());
        List<String> seenByA = userMessagesOfLastRequest();
        assertTrue(seenByA.stream().anyMatch(m -> m.contains("second, on B")),
                "A reads what B added before its next turn: " + seenByA);
        String history = model.lastRequest().messages().toString();
        assertTrue(history.contains("two on B"), "B's answer is in A's history: " + history);
        assertEquals(1, history.split("first, on A", -1).length - 1, "nothing is doubled: " + history);

        List<String> stored = storeB.read(onA.id()).records().stream().map(r -> r.path("type").asText()).toList();
        assertEquals(3, stored.stream().filter("turn_end"::equals).count(), "all three turns saved in one log: " + stored);
    }

    @Test
    void aTurnOnOneInstanceKeepsTheOtherOutUntilItEnds() throws Exception {
        Session onA = a.create(SessionService.Spec.of(ws), id -> new FakeHost());
        onA.ready();
        model.enqueue(Script.textReply("stored"));
        onA.prompt(text("hello, on A"), Cancellation.NONE); // a session is stored with its first prompt
        Session onB = reopen(b, onA.id());
        model.enqueue(Script.reply().text("partial").hang());
        CancellationSource cancel = new CancellationSource();
        CompletableFuture<StopReason> running = CompletableFuture.supplyAsync(() -> {
            try {
                return onA.prompt(text("long, on A"), cancel).stopReason();
            } catch (CoreException.Busy e) {
                throw new IllegalStateException(e);
            }
        });
        model.awaitRequests(2, Duration.ofSeconds(30));

        CoreException.Busy busy = assertThrows(CoreException.Busy.class, onB::beginTurn);
        assertTrue(busy.getMessage().contains("another agent instance"), busy.getMessage());
        assertTrue(storeB.isLive(onA.id()), "the turn holds the lease");
        assertFalse(onB.hasActiveTurn(), "the refused turn left B's slot free");

        cancel.cancel();
        assertEquals(StopReason.CANCELLED, running.get());
        model.enqueue(Script.textReply("after, on B"));
        assertEquals(StopReason.END_TURN, onB.prompt(text("next, on B"), Cancellation.NONE).stopReason());
        assertTrue(userMessagesOfLastRequest().stream().anyMatch(m -> m.contains("long, on A")),
                "the cancelled turn's prompt is part of the conversation B continues");
    }

    @Test
    void aSettingChangedWhileTheOtherInstanceAnswersIsNotSavedAndTheUserIsTold() throws Exception {
        Session onA = a.create(SessionService.Spec.of(ws), id -> new FakeHost());
        onA.ready();
        model.enqueue(Script.textReply("stored"));
        onA.prompt(text("hello, on A"), Cancellation.NONE); // a session is stored with its first prompt
        FakeHost hostB = new FakeHost();
        Session onB = b.reopen(onA.id(), SessionService.Spec.of(ws), hostB, false);
        onB.ready();
        model.enqueue(Script.reply().text("partial").hang());
        CancellationSource cancel = new CancellationSource();
        CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
            try {
                onA.prompt(text("long, on A"), cancel);
            } catch (CoreException.Busy e) {
                throw new IllegalStateException(e);
            }
        });
        model.awaitRequests(2, Duration.ofSeconds(30));
        onB.setMode("plan");

        assertTrue(hostB.of(AgentEvent.Notice.class).stream().anyMatch(n -> n.text().contains("not saved")),
                "B is told its change is not saved");
        cancel.cancel();
        running.get();
        assertTrue(storeB.read(onA.id()).records().stream().noneMatch(r -> r.toString().contains("\"plan\"")),
                "no record was written into A's turn");
    }
}
