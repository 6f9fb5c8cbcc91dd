package cn.agentao.agent.core;

import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.util.Cancellation;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.ToolExecutionResultMessage;

import java.util.List;

/** Runs the model's tool calls: shown to the user, judged by the permission engine, executed, reported back. */
public interface ToolCallRunner {
    /** Runs one call with the tool of that name from the first of {@code sources} that has it; never throws. */
    ToolExecutionResultMessage run(Session session, List<ToolSource> sources, ToolExecutionRequest call, Cancellation cancel);
}
