package cn.agentao.agent.core;

import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SyncPolicy;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The journal writes engine records through a lease and tells the user when saving stops. */
class StoreJournalTest {
    @TempDir
    Path dir;

    /**
     * A lease a repository let expire under the session (as a database does when its connection drops): the
     * real file lease underneath, which stops being held when told to.
     */
    private static final class ExpiringLease implements SessionLease {
        private final SessionLease lease;
        private volatile boolean expired;

        ExpiringLease(SessionLease lease) {
            this.lease = lease;
        }

        void expire() {
            expired = true;
        }

        @Override public String sessionId() { return lease.sessionId(); }
        @Override public long lastSeq() { return lease.lastSeq(); }
        @Override public boolean held() { return !expired && lease.held(); }
        @Override public void close() { lease.close(); }

        @Override
        public long append(String type, ObjectNode payload) {
            if (expired) throw new IllegalStateException("the lease on session " + sessionId() + " expired");
            return lease.append(type, payload);
        }
    }

    @Test
    void engineRecordsAreStoredInTheirDocumentedShape() {
        SessionStore store = new SessionStore(dir, SyncPolicy.NO_FSYNC);
        try (StoreJournal journal = new StoreJournal(store.create("s", dir, null))) {
            journal.append(new EngineRecord.Title("Fix the build"));
            journal.append(new EngineRecord.TurnEnd(StopReason.CANCELLED));
        }
        List<ObjectNode> records = store.read("s").records();
        assertEquals("Fix the build", records.get(0).path("text").asText());
        assertEquals("title", records.get(0).path("type").asText());
        assertEquals("cancelled", records.get(1).path("stopReason").asText());
    }

    @Test
    void aLeaseThatEndsUnderTheSessionIsToldToTheUserOnceAndNothingMoreIsWritten() {
        SessionStore store = new SessionStore(dir, SyncPolicy.NO_FSYNC);
        ExpiringLease lease = new ExpiringLease(store.create("s", dir, null));
        List<String> told = new ArrayList<>();
        StoreJournal journal = new StoreJournal(lease);
        journal.reportProblemsTo(told::add);
        journal.append(new EngineRecord.Title("saved"));
        lease.expire();
        journal.append(new EngineRecord.Title("lost 1"));
        journal.append(new EngineRecord.Title("lost 2"));
        journal.close();

        assertEquals(1, told.size(), told.toString());
        assertTrue(told.getFirst().contains("no longer being saved") && told.getFirst().contains("expired"), told.getFirst());
        assertEquals(List.of("saved"), store.read("s").records().stream().map(r -> r.path("text").asText()).toList());
        assertFalse(store.isLive("s"), "closing the journal still lets go of the session");
    }
}
