package cn.agentao.agent.core.host;

import cn.agentao.agent.core.event.AgentEvent;

import java.util.List;

/**
 * A question with fixed options: "may this tool call run?" (the call as the user saw it started, with its id), or
 * the agent's own decisions offered the same way (start a project's MCP servers?). The options come in the order
 * to show them.
 */
public record ApprovalRequest(AgentEvent.ToolCallStarted toolCall, List<ApprovalOption> options) {
    public ApprovalRequest {
        options = List.copyOf(options);
    }

    /** The option with this id, if it was offered. */
    public java.util.Optional<ApprovalOption> option(String optionId) {
        return options.stream().filter(o -> o.optionId().equals(optionId)).findFirst();
    }
}
