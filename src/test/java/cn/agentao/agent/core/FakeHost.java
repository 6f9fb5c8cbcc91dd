package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A front door for in-process core tests: keeps every event, answers approvals and questions from scripted
 * answers (an approval with no scripted answer waits until the turn is cancelled, as a user who never answers).
 */
final class FakeHost implements Host {
    final List<AgentEvent> events = new CopyOnWriteArrayList<>();
    final List<ApprovalRequest> approvals = new CopyOnWriteArrayList<>();
    final List<Question> questions = new CopyOnWriteArrayList<>();
    private final Deque<Function<ApprovalRequest, ApprovalAnswer>> answers = new ArrayDeque<>();
    private final Deque<Optional<String>> replies = new ArrayDeque<>();
    private final CountDownLatch asked = new CountDownLatch(1);

    /** The next approval is answered with {@code optionId}. */
    synchronized FakeHost answer(String optionId) {
        answers.add(r -> ApprovalAnswer.selected(optionId));
        return this;
    }

    /** The next question is answered with {@code text} (empty: nobody answers). */
    synchronized FakeHost reply(Optional<String> text) {
        replies.add(text);
        return this;
    }

    @Override
    public void emit(AgentEvent event) {
        events.add(event);
    }

    @Override
    public ApprovalAnswer askApproval(ApprovalRequest request, Cancellation cancel) throws CancelledException {
        approvals.add(request);
        Function<ApprovalRequest, ApprovalAnswer> next;
        synchronized (this) {
            next = answers.poll();
        }
        asked.countDown();
        if (next != null) return next.apply(request);
        CountDownLatch cancelled = new CountDownLatch(1);
        try (Cancellation.Registration ignored = cancel.onCancel(cancelled::countDown)) {
            cancelled.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new CancelledException();
    }

    @Override
    public synchronized Optional<String> askUser(Question question, Cancellation cancel) {
        questions.add(question);
        Optional<String> r = replies.poll();
        return r == null ? Optional.empty() : r;
    }

    /** Waits for the first approval request. */
    boolean awaitApproval(Duration timeout) throws InterruptedException {
        return asked.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The events of one kind, in order. */
    <T extends AgentEvent> List<T> of(Class<T> kind) {
        List<T> out = new ArrayList<>();
        for (AgentEvent e : events) if (kind.isInstance(e)) out.add(kind.cast(e));
        return out;
    }

    /** The agent's streamed answer text (message chunks joined). */
    String text() {
        StringBuilder sb = new StringBuilder();
        for (AgentEvent.MessageChunk m : of(AgentEvent.MessageChunk.class)) {
            if (m.content() instanceof ContentBlock.Text t) sb.append(t.text());
        }
        return sb.toString();
    }
}
