package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;

import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;

/**
 * A context's session as the core sees its door: the answer text streams into the running task's artifact, tool
 * calls show as {@code working} status messages, and an approval or a question of the model ({@code ask_user})
 * parks the task in {@code input-required} until the caller answers it in the same task.
 */
final class A2aHost implements Host {
    private volatile A2aTask current;

    void current(A2aTask task) { this.current = task; }

    /** An A2A caller is another program, not this machine's user: it neither sees nor changes the user's memory. */
    @Override
    public boolean keepsMemory() { return false; }

    @Override
    public void emit(AgentEvent event) {
        A2aTask task = current;
        if (task == null) return;
        if (event instanceof AgentEvent.MessageChunk c && c.content() instanceof ContentBlock.Text t) {
            task.answerChunk(t.text());
        } else if (event instanceof AgentEvent.ToolCallStarted call && call.title() != null) {
            task.status("working", A2aMessages.agent(task.id(), task.contextId(), "Tool: " + call.title(), null));
        }
    }

    @Override
    public ApprovalAnswer askApproval(ApprovalRequest request, Cancellation cancel) throws CancelledException {
        String option = ask(new PermissionQuestion(request), cancel);
        return option == null ? ApprovalAnswer.DISMISSED : ApprovalAnswer.selected(option);
    }

    /** The model's free-text question ({@code ask_user}) goes to the caller the same way. */
    @Override
    public Optional<String> askUser(Question question, Cancellation cancel) throws CancelledException {
        return Optional.ofNullable(ask(new UserQuestion(question), cancel));
    }

    /** Parks the running task in input-required until its next message answers; null when no task runs. */
    private String ask(PendingQuestion q, Cancellation cancel) throws CancelledException {
        A2aTask task = current;
        if (task == null) return null;
        task.question(q);
        try (Cancellation.Registration r = cancel.onCancel(() -> q.answer().cancel(false))) {
            task.status("input-required", A2aMessages.agent(task.id(), task.contextId(), q.text(null), q.data()));
            return q.answer().get();
        } catch (CancellationException | ExecutionException e) {
            throw new CancelledException();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancelledException();
        } finally {
            task.question(null);
        }
    }
}
