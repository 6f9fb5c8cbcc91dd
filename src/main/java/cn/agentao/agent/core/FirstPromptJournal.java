package cn.agentao.agent.core;

import cn.agentao.agent.core.record.EngineRecord;
import cn.agentao.agent.core.repository.SessionStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The journal of a new session until its first prompt: what happens before it (a mode or model chosen, a slash command
 * the agent answered itself) is held in memory, and the session is stored, with all of it, when the first user message
 * for the model is appended. A session closed before that leaves nothing in the store, so opening and closing an
 * editor's panel does not fill the session list. When storing fails then, the user is told, the records keep
 * waiting, and storing is tried again at the end of each turn.
 */
final class FirstPromptJournal implements SessionJournal {
    private static final Logger log = LoggerFactory.getLogger(FirstPromptJournal.class);

    /** Stores the session (its lease held) and returns its journal. */
    private final Supplier<SessionJournal> store;
    private final List<EngineRecord> held = new ArrayList<>();
    private Consumer<String> user = text -> log.warn("{}", text);
    /** The stored session's journal; null until the first prompt stored it. */
    private SessionJournal saved;
    private boolean prompted;
    /** Why storing the session failed; null when it has not failed. */
    private String failure;
    private boolean closed;

    FirstPromptJournal(Supplier<SessionJournal> store) {
        this.store = store;
    }

    @Override
    public synchronized void reportProblemsTo(Consumer<String> user) {
        this.user = user;
        if (saved != null) saved.reportProblemsTo(user);
    }

    @Override
    public synchronized void append(EngineRecord record) {
        if (saved != null) {
            saved.append(record);
            return;
        }
        if (closed) return;
        held.add(record);
        if (record instanceof EngineRecord.UserMessage m && !m.local() && !prompted) {
            prompted = true;
            save();
        }
    }

    /** Stores the session with every record held so far. */
    private void save() {
        SessionJournal journal;
        try {
            journal = store.get();
        } catch (SessionStoreException e) {
            if (failure == null) {
                user.accept("This conversation could not be saved: " + e.getMessage() + ". The agent goes on and saves it"
                        + " as soon as writing works again; until then it would be lost if the agent stopped.");
            }
            failure = e.getMessage();
            return;
        }
        journal.reportProblemsTo(user);
        held.forEach(journal::append);
        held.clear();
        saved = journal;
        if (failure != null) {
            failure = null;
            user.accept("The conversation is saved again: what could not be saved before is stored now.");
        }
    }

    @Override
    public synchronized SessionReplay.Restored acquire() {
        return saved == null ? null : saved.acquire();
    }

    @Override
    public synchronized void release() {
        if (saved == null && prompted && !closed) save();
        if (saved != null) saved.release();
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        if (saved != null) {
            saved.close();
        } else if (prompted) {
            log.error("a session's {} records could not be saved and are lost ({})", held.size(), failure);
        }
        held.clear();
    }
}
