package cn.agentao.agent.model;

import dev.langchain4j.data.message.AiMessage;

/** The complete answer of one call: text, thinking and tool calls in {@code message}; {@code usage} may be null. */
public record ModelResponse(AiMessage message, FinishKind finish, TokenCount usage) {}
