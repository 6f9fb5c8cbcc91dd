package cn.agentao.agent.door.agora;

import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The host of a space's session. Nobody in a space can approve a step or answer a question: every approval is
 * dismissed (= rejected) and remembered, like every step the mode refused outright, so the reply can say what was
 * not done. {@link #begin()} starts a new answer.
 */
final class SpaceHost implements Host {
    private static final String DENIED = "Denied:";
    private final String mode;
    private final List<String> refused = new ArrayList<>();

    SpaceHost(String mode) {
        this.mode = mode;
    }

    synchronized void begin() {
        refused.clear();
    }

    /** The answer to publish: the turn's text, then what was refused. */
    synchronized String answer(String turnText) {
        StringBuilder b = new StringBuilder(turnText == null ? "" : turnText.strip());
        if (!refused.isEmpty()) {
            if (!b.isEmpty()) b.append("\n\n");
            b.append("Not done (mode ").append(mode).append("; nobody can approve a step in a space): ")
                    .append(String.join("; ", refused)).append('.');
        }
        return b.toString();
    }

    @Override
    public void emit(AgentEvent event) {
        if (event instanceof AgentEvent.ToolCallUpdated u && u.status() == ToolCallStatus.FAILED && u.content() != null) {
            // a step the mode refused outright ("Denied: …"): said in the reply as well as to the model
            for (JsonNode node : Json.mapper().valueToTree(u.content()).findValues("text")) {
                String t = node.asText();
                if (t.startsWith(DENIED)) {
                    synchronized (this) {
                        refused.add(t.substring(DENIED.length()).strip());
                    }
                }
            }
        }
    }

    @Override
    public ApprovalAnswer askApproval(ApprovalRequest request, Cancellation cancel) {
        String title = request.toolCall() == null || request.toolCall().title() == null ? "a step" : request.toolCall().title();
        synchronized (this) {
            refused.add(title + " (needs an approval)");
        }
        return ApprovalAnswer.DISMISSED;
    }

    /** Nobody in a space speaks for the machine's user: commands see the workspace only and never leave the sandbox. */
    @Override
    public boolean answersForUser() { return false; }

    @Override
    public Optional<String> askUser(Question question, Cancellation cancel) {
        return Optional.empty();
    }
}
