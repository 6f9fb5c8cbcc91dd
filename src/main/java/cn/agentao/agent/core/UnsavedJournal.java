package cn.agentao.agent.core;

import cn.agentao.agent.core.record.EngineRecord;

import java.util.function.Consumer;

/**
 * The journal of a saved session reopened from a store that can be read but not written (a read-only mount, no
 * permission): the conversation is shown, nothing new is saved, and the user is told so when it opens and in every
 * turn that would have been saved.
 */
final class UnsavedJournal implements SessionJournal {
    private final String why;
    private final String hint;
    private Consumer<String> user = text -> { };
    private boolean toldThisTurn;

    /** {@code why}: the store's refusal; {@code hint}: how to choose a store that can be written. */
    UnsavedJournal(String why, String hint) {
        this.why = why;
        this.hint = hint;
    }

    @Override
    public synchronized void reportProblemsTo(Consumer<String> user) {
        this.user = user;
        user.accept("This conversation is opened read-only: the session store cannot be written (" + why + "). It is shown"
                + " as saved; what is said from now on is not saved. To keep it, " + hint + ".");
    }

    @Override
    public synchronized void append(EngineRecord record) {
        if (toldThisTurn) return;
        toldThisTurn = true;
        user.accept("This turn is not saved: the session store cannot be written.");
    }

    @Override
    public synchronized void release() {
        toldThisTurn = false;
    }

    @Override
    public void close() { }
}
