package cn.agentao.agent.core.host;

import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;

import java.util.Optional;

/**
 * What a front door supplies for each session it opens: where the session's events go, who answers approvals
 * and questions, and where files are read and commands run. The ACP door maps these onto {@code session/update},
 * {@code session/request_permission}, its ask-user extension and the client's fs/terminal; a headless door may
 * deny every approval and answer no question.
 *
 * <p>Calls come from the session's turn thread (and, for a notice or a changed command list, from other threads
 * of the session); {@link #emit} must not block for long and must keep the order of its calls.
 */
public interface Host {

    /** Shows an event to the user. Never throws; a door that cannot deliver it drops it. */
    void emit(AgentEvent event);

    /**
     * Asks the user to approve a tool call (or another decision offered as options) and waits for the answer.
     * Returns {@link ApprovalAnswer#DISMISSED} when nobody chose an option (no one to ask, the request failed).
     *
     * @throws CancelledException when {@code cancel} fired while waiting (the door withdraws its question)
     */
    ApprovalAnswer askApproval(ApprovalRequest request, Cancellation cancel) throws CancelledException;

    /**
     * Asks the user a free-text question and waits. Empty when nobody can answer (the door cannot ask, the user
     * dismissed it, the request failed): the model is then told "(user unavailable)".
     *
     * @throws CancelledException when {@code cancel} fired while waiting
     */
    Optional<String> askUser(Question question, Cancellation cancel) throws CancelledException;

    /**
     * Whether whoever answers this session's questions speaks for this machine's user (an editor, the terminal, an
     * A2A caller the server trusts). False for a space's members: their commands see the workspace only (no tool
     * chains, no paths the user listed for the sandbox) and are never offered a run outside the sandbox.
     */
    default boolean answersForUser() { return true; }

    /**
     * Whether the session is this machine's user's own (an editor, the terminal), so it sees the memory the user
     * saved (in its system prompt) and may add to it. False for a space's members and an A2A caller: what the user
     * remembers about themselves and their projects is neither shown to nor written by others.
     */
    default boolean keepsMemory() { return answersForUser(); }

    /** Where the session's tools read and write files and run commands; this machine unless the door says otherwise. */
    default HostEnvironment environment() { return HostEnvironment.LOCAL; }

    /**
     * Where a subagent of this session is shown as a session of its own (ACP with {@code clientCapabilities.subagents}):
     * the host for the child's session id, which takes its events and questions; null (the default) where children
     * are shown as their task call's progress. A returned host's environment is not used: the child works where its
     * parent does.
     */
    default Host childSession(String sessionId) { return null; }
}
