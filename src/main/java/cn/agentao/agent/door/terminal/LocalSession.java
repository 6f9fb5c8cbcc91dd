package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.TurnResult;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The terminal's {@link Host} for one session of the core: events go to a {@link View}, approvals and questions
 * are the view's to answer. The sessions are the core's, kept in the same store as an editor's: either door can
 * reopen what the other started.
 */
public final class LocalSession implements Host, AutoCloseable {
    /** What shows the session to the person. */
    public interface View {
        /** The session's id, before any event of it. */
        default void opened(String sessionId) {}

        void event(AgentEvent event);

        /** Answers an approval with one of {@code options}' ids, or null to reject and cancel the turn. */
        String choose(AgentEvent.ToolCallStarted call, List<ApprovalOption> options, Cancellation cancel);

        /** A free-text question from the agent; empty when nobody answers. */
        default Optional<String> ask(Question question, Cancellation cancel) { return Optional.empty(); }
    }

    /** Thrown when the session cannot be opened; its message is for the user. */
    public static final class OpenException extends Exception {
        public OpenException(String message) { super(message); }
    }

    private final View view;
    private volatile Session session;

    private LocalSession(View view) {
        this.view = view;
    }

    /**
     * Opens a session in {@code cwd}: new when {@code resume} is null, else the latest of {@code cwd} ("") or the
     * one with that id (or unique prefix). A reopened session's conversation is shown to the view when {@code replay}.
     */
    public static LocalSession open(SessionService sessions, Path cwd, String resume, boolean replay, View view)
            throws OpenException {
        LocalSession local = new LocalSession(view);
        SessionService.Spec spec = SessionService.Spec.of(cwd);
        try {
            if (resume == null) {
                local.session = sessions.create(spec, id -> {
                    view.opened(id);
                    return local;
                });
            } else {
                String id = resume.isEmpty() ? sessions.latest(cwd) : sessions.resolve(resume);
                view.opened(id);
                local.session = sessions.reopen(id, spec, local, replay);
            }
        } catch (CoreException e) {
            throw new OpenException(e.getMessage());
        }
        local.session.ready();
        return local;
    }

    public Session session() { return session; }

    public String id() { return session.id(); }

    /** Runs one prompt to its end; {@link #cancel} from another thread ends it early. */
    public TurnResult prompt(List<ContentBlock> prompt) {
        try {
            return session.prompt(prompt, Cancellation.NONE);
        } catch (CoreException.Busy e) {
            throw new IllegalStateException(e.getMessage());
        }
    }

    /** {@code !command}: runs it under the session's permission and sandbox rules; its output joins the conversation. */
    public TurnResult runCommand(String command) {
        try {
            return session.runUserCommand(command, Cancellation.NONE);
        } catch (CoreException.Busy e) {
            throw new IllegalStateException(e.getMessage());
        }
    }

    /** Cancels the running turn, if any. */
    public void cancel() {
        Session s = session;
        if (s != null) s.cancel();
    }

    public void setMode(String mode) throws CoreException { session.setMode(mode); }

    public void setModel(String model) throws CoreException { session.set(cn.agentao.agent.core.content.Setting.MODEL, model); }

    // ---------------------------------------------------------------- Host

    @Override
    public void emit(AgentEvent event) { view.event(event); }

    @Override
    public ApprovalAnswer askApproval(ApprovalRequest request, Cancellation cancel) throws CancelledException {
        String chosen = view.choose(request.toolCall(), request.options(), cancel);
        if (chosen != null) return ApprovalAnswer.selected(chosen);
        cancel();
        if (cancel.isCancelled()) throw new CancelledException();
        return ApprovalAnswer.DISMISSED;
    }

    @Override
    public Optional<String> askUser(Question question, Cancellation cancel) throws CancelledException {
        Optional<String> answer = view.ask(question, cancel);
        if (cancel.isCancelled()) throw new CancelledException();
        return answer;
    }

    @Override
    public void close() {
        Session s = session;
        if (s != null) s.close();
    }
}
