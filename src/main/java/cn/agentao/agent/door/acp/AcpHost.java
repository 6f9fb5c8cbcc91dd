package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.host.HostEnvironment;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.door.acp.protocol.SessionUpdate;
import cn.agentao.agent.door.acp.protocol.SessionUpdates;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import cn.agentao.agent.util.InertText;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * A session's host on the ACP connection: events become {@code session/update} notifications, approvals
 * {@code session/request_permission}, questions the {@code _agentao.cn/ask_user} extension (when the client
 * advertised it), and files and commands go to the client where it offers them ({@link AcpEnvironment}).
 */
final class AcpHost implements Host {
    private static final Logger log = LoggerFactory.getLogger(AcpHost.class);
    static final String REQUEST_PERMISSION = "session/request_permission";

    private final AcpSessionClient client;
    private final AcpEnvironment environment;

    AcpHost(AcpSessionClient client, String sessionId) {
        this.client = client;
        this.environment = new AcpEnvironment(client.capabilities(), client::call, sessionId);
    }

    @Override
    public void emit(AgentEvent event) {
        if (event instanceof AgentEvent.ChildEvent c) { // a replayed child's update, under its own session id
            Host child = childSession(c.sessionId());
            if (child != null) child.emit(c.event());
            return;
        }
        SessionUpdate update = SessionUpdates.of(event, client.capabilities());
        if (update != null) client.update(update);
    }

    @Override
    public ApprovalAnswer askApproval(ApprovalRequest request, Cancellation cancel) throws CancelledException {
        ObjectNode params = Json.object();
        ObjectNode toolCall = Json.mapper().valueToTree(request.toolCall());
        if (toolCall.path("title").isTextual()) toolCall.put("title", InertText.forApproval(toolCall.path("title").textValue()));
        params.set("toolCall", toolCall); // what the user approves shows every character; rawInput stays exact
        ArrayNode options = params.putArray("options");
        for (ApprovalOption o : request.options()) {
            options.addObject().put("optionId", o.optionId()).put("name", o.name()).put("kind", o.kind().wire());
        }
        JsonNode answer;
        try {
            answer = client.call(REQUEST_PERMISSION, params, cancel);
        } catch (CancelledException e) {
            throw e;
        } catch (Exception e) {
            if (cancel.isCancelled()) throw new CancelledException();
            log.info("permission request for {} failed ({}); treated as dismissed", request.toolCall().toolCallId(),
                    e.getClass().getSimpleName());
            return ApprovalAnswer.DISMISSED;
        }
        JsonNode outcome = answer.path("outcome");
        if (!"selected".equals(outcome.path("outcome").asText()) || !outcome.path("optionId").isTextual()) {
            return ApprovalAnswer.DISMISSED;
        }
        return ApprovalAnswer.selected(outcome.path("optionId").asText());
    }

    @Override
    public Optional<String> askUser(Question question, Cancellation cancel) throws CancelledException {
        try {
            return environment.questions(cancel).ask(question.text(), question.options());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancelledException();
        }
    }

    @Override
    public HostEnvironment environment() { return environment; }

    /** With {@code clientCapabilities.subagents}, a subagent is a session of its own on this connection. */
    @Override
    public Host childSession(String sessionId) {
        return client.capabilities().subagents() ? new AcpHost(client.forSession(sessionId), sessionId) : null;
    }
}
