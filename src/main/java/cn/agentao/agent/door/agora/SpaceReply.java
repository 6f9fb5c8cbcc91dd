package cn.agentao.agent.door.agora;

import cn.agentao.agent.core.SessionClient;
import cn.agentao.agent.protocol.ClientCapabilities;
import cn.agentao.agent.protocol.ContentBlock;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.protocol.ToolCallStatus;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The session's client while the agent answers in a space: it gathers the answer's text, and since nobody in a
 * space can approve a step, it rejects every permission question and remembers it, so the reply can say what was
 * not done. One per space session; {@link #begin()} starts a new answer.
 */
final class SpaceReply implements SessionClient {
    private static final String DENIED = "Denied:";
    private final String mode;
    private final StringBuilder text = new StringBuilder();
    private final List<String> denied = new ArrayList<>();

    SpaceReply(String mode) {
        this.mode = mode;
    }

    synchronized void begin() {
        text.setLength(0);
        denied.clear();
    }

    /** The answer to publish: what the model said, then what was refused. */
    synchronized String answer() {
        StringBuilder b = new StringBuilder(text.toString().strip());
        if (!denied.isEmpty()) {
            if (!b.isEmpty()) b.append("\n\n");
            b.append("Not done (mode ").append(mode).append("; nobody can approve a step in a space): ")
                    .append(String.join("; ", denied)).append('.');
        }
        return b.toString();
    }

    @Override
    public synchronized void update(SessionUpdate update) {
        if (update instanceof SessionUpdate.AgentMessageChunk c && c.content() instanceof ContentBlock.Text t) {
            text.append(t.text());
        } else if (update instanceof SessionUpdate.ToolCallUpdate u && u.status() == ToolCallStatus.FAILED && u.content() != null) {
            // a step the mode refused outright ("Denied: …"): said in the reply as well as to the model
            for (JsonNode node : Json.MAPPER.valueToTree(u.content()).findValues("text")) {
                String t = node.asText();
                if (t.startsWith(DENIED)) denied.add(t.substring(DENIED.length()).strip());
            }
        }
    }

    @Override
    public ClientCapabilities capabilities() {
        return ClientCapabilities.NONE;
    }

    @Override
    public JsonNode call(String method, ObjectNode params, Cancellation cancel) throws Exception {
        if ("session/request_permission".equals(method)) {
            String title = params.path("toolCall").path("title").asText("a step") + " (needs an approval)";
            synchronized (this) {
                denied.add(title);
            }
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", "reject_once");
            return r;
        }
        throw new UnsupportedOperationException(method + " is not available in an Agora space");
    }
}
