package cn.agentao.agent.core;

import cn.agentao.agent.cli.ToolCalls;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.repository.PruneRule;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SyncPolicy;
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
import java.util.HashMap;
import java.util.Map;

import static cn.agentao.agent.core.CoreFixture.text;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Checkpoints and {@code /undo}, {@code /rewind N} in-process, with the real file tools and file store and the scripted
 * model: what a turn changed through write_file and edit goes back, a file the user changed since is left alone and
 * named, the model is told, and all of it survives a restart and goes with the session when it is pruned.
 */
@Timeout(60)
class CheckpointsTest {
    @TempDir
    Path dir;
    FakeModelServer model;
    Map<String, String> env;
    Path configDir;
    Path ws;
    Path storeDir;
    SessionService sessions;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start().whenEmptyFail();
        env = new HashMap<>(model.openAiEnvironment());
        env.put("HOME", dir.resolve("home").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("AGENT_SANDBOX", "none");
        configDir = ConfigLocations.userConfigDir(env);
        storeDir = dir.resolve("store");
        ws = Files.createDirectories(dir.resolve("ws"));
        sessions = service();
    }

    private SessionService service() {
        Engine engine = new Engine(cn.agentao.agent.config.AgentConfig.load(env), ToolCalls.create(cn.agentao.agent.config.AgentConfig.load(env)));
        return new SessionService(engine, new SessionStore(storeDir, SyncPolicy.NO_FSYNC));
    }

    @AfterEach
    void stop() {
        sessions.close();
        model.close();
    }

    private Session open() throws CoreException {
        Session s = sessions.create(SessionService.Spec.of(ws), id -> new FakeHost());
        s.ready();
        return s;
    }

    private static String json(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
    }

    private static Script write(Script s, String id, Path path, String content) {
        return s.toolCall(id, "write_file", "{\"path\":" + json(path.toString()) + ",\"content\":" + json(content) + "}");
    }

    private static Script edit(Script s, String id, Path path, String from, String to) {
        return s.toolCall(id, "edit", "{\"path\":" + json(path.toString()) + ",\"old_string\":" + json(from)
                + ",\"new_string\":" + json(to) + "}");
    }

    @Test
    void undoRestoresTheTurnsFilesDeletesTheCreatedOneAndSkipsWhatTheUserChanged() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "alpha one\n");
        Files.writeString(ws.resolve("b.txt"), "bravo\n");
        Files.writeString(ws.resolve("c.txt"), "charlie\n");
        Session s = open();
        Script calls = Script.reply();
        write(calls, "c1", ws.resolve("new.txt"), "created by the agent\n");
        edit(calls, "c2", ws.resolve("a.txt"), "alpha", "ALPHA");
        write(calls, "c3", ws.resolve("b.txt"), "bravo by the agent\n");
        edit(calls, "c4", ws.resolve("c.txt"), "charlie", "CHARLIE");
        model.enqueue(calls, Script.textReply("Done."));
        s.prompt(text("change the files"), Cancellation.NONE);
        assertEquals("ALPHA one\n", Files.readString(ws.resolve("a.txt")), "the tools ran");
        Files.writeString(ws.resolve("c.txt"), "the user's own change\n"); // the user edits one of them

        String answer = s.prompt(text("/undo"), Cancellation.NONE).text();

        assertEquals("alpha one\n", Files.readString(ws.resolve("a.txt")));
        assertEquals("bravo\n", Files.readString(ws.resolve("b.txt")));
        assertFalse(Files.exists(ws.resolve("new.txt")), "the file the turn created is gone");
        assertEquals("the user's own change\n", Files.readString(ws.resolve("c.txt")), "the user's edit stays");
        assertTrue(answer.contains("Restored: `a.txt`, `b.txt`"), answer);
        assertTrue(answer.contains("`new.txt`") && answer.contains("Deleted"), answer);
        assertTrue(answer.contains("Skipped: `c.txt` (changed since the agent wrote it"), answer);
        assertFalse(Files.exists(ws.resolve(".agent")), "nothing of the checkpoint is in the workspace");

        model.enqueue(Script.textReply("ok"));
        s.prompt(text("what now?"), Cancellation.NONE);
        String body = model.lastRequest().rawBody();
        assertTrue(body.contains("The user took back file changes with /undo"), "the model is told: " + body);

        String again = s.prompt(text("/undo"), Cancellation.NONE).text();
        assertTrue(again.contains("Nothing to undo"), again);
    }

    @Test
    void twoWritesAtOnceToOneFileAreUndoneAsTheFileEndedUp() throws Exception {
        // two subagents of a turn write one file at once; the first write's answer comes back late (an editor's slow
        // reply to fs/write_text_file): the checkpoint must keep the hash of what the file ended up holding
        Path p = Files.writeString(ws.resolve("shared.txt"), "original\n");
        java.util.concurrent.CountDownLatch firstOnDisk = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch secondOnDisk = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Thread> second = new java.util.concurrent.atomic.AtomicReference<>();
        cn.agentao.agent.core.tool.FileAccess disk = new cn.agentao.agent.core.tool.FileAccess() {
            @Override public String readText(Path path, Integer line, Integer limit) throws java.io.IOException { return Files.readString(path); }

            @Override
            public void writeText(Path path, String content) throws java.io.IOException {
                Files.writeString(path, content);
                if (!content.startsWith("first")) {
                    secondOnDisk.countDown();
                    return;
                }
                firstOnDisk.countDown();
                // the answer is held until the second write is on disk or waits for this one to finish
                try {
                    while (!secondOnDisk.await(5, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                        Thread t = second.get();
                        if (t != null && t.getState() == Thread.State.BLOCKED) return;
                    }
                    second.get().join(); // the second write went through while this one was not answered yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        Checkpoints checkpoints = Checkpoints.open(java.util.Optional.of(dir.resolve("checkpoints")), ws, 0, n -> { });
        checkpoints.turnStarted(text("two children write"));
        cn.agentao.agent.core.tool.FileAccess guarded = checkpoints.guard(disk);
        Thread first = Thread.ofPlatform().start(() -> {
            try {
                guarded.writeText(p, "first child\n");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        firstOnDisk.await();
        Thread other = Thread.ofPlatform().unstarted(() -> {
            try {
                guarded.writeText(p, "second child\n");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        second.set(other);
        other.start();
        first.join();
        other.join();
        assertEquals("second child\n", Files.readString(p));

        String answer = checkpoints.undo(disk).text();

        assertTrue(answer.contains("Restored: `shared.txt`"), answer);
        assertEquals("original\n", Files.readString(p));
    }

    @Test
    void rewindGoesBackToBeforeTheTurnGivenAcrossTwoTurns() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "one\n");
        Session s = open();
        Script first = Script.reply();
        edit(first, "c1", ws.resolve("a.txt"), "one", "two");
        write(first, "c2", ws.resolve("first.txt"), "1\n");
        model.enqueue(first, Script.textReply("Turn one done."));
        s.prompt(text("turn one"), Cancellation.NONE);
        Script second = Script.reply();
        edit(second, "c3", ws.resolve("a.txt"), "two", "three");
        write(second, "c4", ws.resolve("sub/second.txt"), "2\n");
        model.enqueue(second, Script.textReply("Turn two done."));
        s.prompt(text("turn two"), Cancellation.NONE);
        assertEquals("three\n", Files.readString(ws.resolve("a.txt")));

        String list = s.prompt(text("/rewind"), Cancellation.NONE).text();
        assertTrue(list.contains("turn 1 (“turn one”): `a.txt`, `first.txt`"), list);
        assertTrue(list.contains("turn 2 (“turn two”): `a.txt`, `sub/second.txt`"), list);

        String answer = s.prompt(text("/rewind 1"), Cancellation.NONE).text();
        assertEquals("one\n", Files.readString(ws.resolve("a.txt")), answer);
        assertFalse(Files.exists(ws.resolve("first.txt")), answer);
        assertFalse(Files.exists(ws.resolve("sub/second.txt")), answer);
        assertTrue(answer.contains("Rewound to before turn 1") && answer.contains("turns 1 to 2"), answer);
        assertTrue(s.prompt(text("/rewind 7"), Cancellation.NONE).text().contains("There is no turn 7"));
    }

    @Test
    void checkpointsSurviveARestartAndTurnsKeepTheirNumbers() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "one\n");
        Session s = open();
        String id = s.id();
        Script first = Script.reply();
        edit(first, "c1", ws.resolve("a.txt"), "one", "two");
        model.enqueue(first, Script.textReply("ok"));
        s.prompt(text("first"), Cancellation.NONE);
        model.enqueue(Script.textReply("just talk"));
        s.prompt(text("second, no change"), Cancellation.NONE);
        sessions.close();

        sessions = service(); // a new process, in effect
        Session again = sessions.reopen(id, SessionService.Spec.of(ws), new FakeHost(), false);
        again.ready();
        Script third = Script.reply();
        write(third, "c2", ws.resolve("b.txt"), "new\n");
        model.enqueue(third, Script.textReply("ok"));
        again.prompt(text("third"), Cancellation.NONE);

        String undo3 = again.prompt(text("/undo"), Cancellation.NONE).text();
        assertTrue(undo3.contains("Undid turn 3 (“third”)"), "numbered as the session's prompts: " + undo3);
        assertFalse(Files.exists(ws.resolve("b.txt")));
        assertEquals("two\n", Files.readString(ws.resolve("a.txt")), "only the last turn was taken back");
        String undo1 = again.prompt(text("/undo"), Cancellation.NONE).text();
        assertTrue(undo1.contains("Undid turn 1"), undo1);
        assertEquals("one\n", Files.readString(ws.resolve("a.txt")));
    }

    @Test
    void pruningTheSessionRemovesItsCheckpoints() throws Exception {
        Session s = open();
        Script calls = Script.reply();
        write(calls, "c1", ws.resolve("a.txt"), "x\n");
        model.enqueue(calls, Script.textReply("ok"));
        s.prompt(text("write"), Cancellation.NONE);
        Path shadow = storeDir.resolve("checkpoints").resolve(s.id());
        assertTrue(Files.isDirectory(shadow.resolve("blobs")) || Files.exists(shadow.resolve("checkpoints.jsonl")), "kept");
        s.close();

        var result = new SessionStore(storeDir, SyncPolicy.NO_FSYNC).prune(new PruneRule.KeepNewest(0));
        assertEquals(1, result.removed().size());
        assertFalse(Files.exists(shadow), "the shadow store went with the session");
    }

    @Test
    void aFileOverTheLimitIsNotKeptAndTheUserIsTold() throws Exception {
        Path big = ws.resolve("big.txt");
        Files.write(big, new byte[(int) Checkpoints.MAX_FILE_BYTES + 1]);
        FakeHost host = new FakeHost();
        Session s = sessions.create(SessionService.Spec.of(ws), id -> host);
        s.ready();
        Script calls = Script.reply();
        write(calls, "c1", big, "small now\n");
        model.enqueue(calls, Script.textReply("ok"));
        s.prompt(text("shrink it"), Cancellation.NONE);
        assertTrue(host.of(AgentEvent.Notice.class).stream().anyMatch(n -> n.text().contains("does not keep big.txt")),
                host.events.toString());

        String answer = s.prompt(text("/undo"), Cancellation.NONE).text();
        assertTrue(answer.contains("Not restored: `big.txt` (its earlier content was over the size limit"), answer);
        assertEquals("small now\n", Files.readString(big));
        try (var blobs = Files.list(storeDir.resolve("checkpoints").resolve(s.id()).resolve("blobs"))) {
            assertEquals(0, blobs.count(), "nothing of the big file was stored");
        } catch (java.nio.file.NoSuchFileException none) {
            // no blob directory at all: nothing stored either
        }
    }

    @Test
    void aContentCheckpointedByManyTurnsIsStoredOnce() throws Exception {
        Files.writeString(ws.resolve("big.txt"), "the original\n".repeat(10_000));
        Session s = open();
        for (int turn = 1; turn <= 3; turn++) {
            Script calls = Script.reply();
            write(calls, "c" + turn, ws.resolve("big.txt"), "rewritten in turn " + turn + "\n");
            model.enqueue(calls, Script.textReply("ok"));
            s.prompt(text("turn " + turn), Cancellation.NONE);
            String undo = s.prompt(text("/undo"), Cancellation.NONE).text();
            assertTrue(undo.contains("Undid turn " + turn) && undo.contains("Restored: `big.txt`"), undo);
        }
        assertEquals("the original\n".repeat(10_000), Files.readString(ws.resolve("big.txt")));
        try (var blobs = Files.list(storeDir.resolve("checkpoints").resolve(s.id()).resolve("blobs"))) {
            assertEquals(1, blobs.count(), "the original content, kept by three turns, is on disk once");
        }
    }

    @Test
    void aSpacesMembersCannotTakeBackTheUsersFiles() throws Exception {
        FakeHost events = new FakeHost();
        Session s = sessions.create(SessionService.Spec.of(ws), id -> new SpaceMember(events));
        s.ready();
        s.setMode("full-access");
        Script calls = Script.reply();
        write(calls, "c1", ws.resolve("a.txt"), "written for the space\n");
        model.enqueue(calls, Script.textReply("ok"));
        s.prompt(text("write"), Cancellation.NONE);
        assertEquals("written for the space\n", Files.readString(ws.resolve("a.txt")), "the write happened");

        String answer = s.prompt(text("/undo"), Cancellation.NONE).text();
        assertTrue(answer.contains("not for a space's members"), answer);
        assertTrue(Files.exists(ws.resolve("a.txt")), "nothing was taken back");
        assertTrue(events.of(AgentEvent.CommandsChanged.class).getFirst().commands().stream()
                .noneMatch(c -> c.name().equals("undo") || c.name().equals("rewind")), "not offered");
    }

    /** As an Agora space's host: whoever answers does not speak for this machine's user. */
    private record SpaceMember(FakeHost events) implements cn.agentao.agent.core.host.Host {
        @Override public void emit(AgentEvent event) { events.emit(event); }
        @Override public cn.agentao.agent.core.host.ApprovalAnswer askApproval(cn.agentao.agent.core.host.ApprovalRequest r, Cancellation c) {
            return cn.agentao.agent.core.host.ApprovalAnswer.DISMISSED;
        }
        @Override public java.util.Optional<String> askUser(cn.agentao.agent.core.host.Question q, Cancellation c) { return java.util.Optional.empty(); }
        @Override public boolean answersForUser() { return false; }
    }
}
