package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.core.repository.SessionBusyException;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionRepository;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SyncPolicy;
import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The journal of a session in a shared store, over a real store whose leases can be made to fail as an unreachable
 * database's do: the lease is held only during a turn; records of a turn that ran while the store was unreachable are
 * saved, in order, once it is back and nobody wrote meanwhile, and dropped (the user told) if someone did.
 */
class TurnLeaseJournalTest {
    @TempDir
    Path dir;
    SessionStore files;
    SessionRepository store;
    volatile boolean unreachable;
    final List<String> told = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() {
        files = new SessionStore(dir.resolve("store"), SyncPolicy.NO_FSYNC);
        store = (SessionRepository) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {SessionRepository.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("lease") && unreachable) throw new SessionStoreException("connection refused");
                    try {
                        return method.invoke(files, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private TurnLeaseJournal journal(String id) {
        TurnLeaseJournal j = new TurnLeaseJournal(store, store.create(id, dir, null));
        j.reportProblemsTo(told::add);
        j.release();
        return j;
    }

    private static EngineRecord said(String text) {
        return new EngineRecord.UserMessage(List.of(ContentBlock.text(text)), false);
    }

    private List<String> saved(String id) {
        return files.read(id).records().stream()
                .map(r -> r.path("type").asText().equals("user_message") ? r.path("content").path(0).path("text").asText() : r.path("type").asText())
                .toList();
    }

    @Test
    void theLeaseIsHeldOnlyDuringATurn() {
        TurnLeaseJournal j = journal("s1");
        assertFalse(files.isLive("s1"));
        assertNull(j.acquire(), "nothing moved");
        assertTrue(files.isLive("s1"));
        j.append(said("one"));
        j.release();
        assertFalse(files.isLive("s1"));
        j.append(new EngineRecord.TurnEnd(StopReason.END_TURN)); // outside a turn: leased for this write alone
        assertFalse(files.isLive("s1"));
        assertEquals(List.of("one", "turn_end"), saved("s1"));
    }

    @Test
    void aTurnThatFindsTheSessionMovedOnReadsItAgain() {
        TurnLeaseJournal j = journal("s2");
        try (SessionLease other = files.lease("s2")) { // another instance's turn
            other.append("user_message", Json.object().set("content", Json.mapper().createArrayNode()
                    .add(Json.object().put("type", "text").put("text", "elsewhere"))));
            assertThrows(SessionBusyException.class, j::acquire, "while it runs, this one is kept out");
        }
        SessionReplay.Restored restored = j.acquire();
        assertNotNull(restored, "moved on: read again");
        assertEquals(1, restored.lastSeq());
        j.append(said("here"));
        j.release();
        assertNull(j.acquire(), "nothing moved since");
        j.release();
        assertEquals(List.of("elsewhere", "here"), saved("s2"));
    }

    @Test
    void whatATurnSaidWhileTheStoreWasUnreachableIsSavedInOrderOnceItIsBack() {
        TurnLeaseJournal j = journal("s3");
        assertNull(j.acquire());
        j.append(said("before"));
        j.release();

        unreachable = true;
        assertNull(j.acquire(), "the turn runs");
        j.append(said("during"));
        j.release();
        j.append(new EngineRecord.TurnEnd(StopReason.END_TURN)); // a write outside a turn waits too
        assertTrue(told.stream().anyMatch(t -> t.contains("could not be saved")), told.toString());
        assertEquals(List.of("before"), saved("s3"));

        unreachable = false;
        assertNull(j.acquire());
        j.append(said("after"));
        j.release();
        assertEquals(List.of("before", "during", "turn_end", "after"), saved("s3"));
        assertTrue(told.stream().anyMatch(t -> t.contains("saved again")), told.toString());
    }

    @Test
    void whatWaitedIsDroppedWhenAnotherInstanceContinuedMeanwhile() {
        TurnLeaseJournal j = journal("s4");
        unreachable = true;
        assertNull(j.acquire());
        j.append(said("lost"));
        j.release();
        unreachable = false;
        try (SessionLease other = files.lease("s4")) {
            other.append("user_message", Json.object().set("content", Json.mapper().createArrayNode()
                    .add(Json.object().put("type", "text").put("text", "elsewhere"))));
        }
        assertNotNull(j.acquire(), "read again from what the other instance saved");
        j.release();
        assertEquals(List.of("elsewhere"), saved("s4"), "one unbroken order: the waiting records are not inserted after");
        assertTrue(told.stream().anyMatch(t -> t.contains("another agent instance continued")), told.toString());
    }
}
