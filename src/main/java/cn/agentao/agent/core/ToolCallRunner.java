package cn.agentao.agent.core;

import cn.agentao.agent.util.Cancellation;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ToolExecutionResultMessage;

import java.util.List;

/** Runs the model's tool calls: shown to the user, judged by the permission engine, executed, reported back. */
public interface ToolCallRunner {
    /** The tools offered to the model in this session. */
    List<ToolSpecification> specifications(SessionRuntime runtime);

    /** Runs one call; never throws: failures become a result the model can read. */
    ToolExecutionResultMessage run(SessionRuntime runtime, ToolExecutionRequest call, Cancellation cancel);

    /** A session opened: process-wide tool sources (an SMCP office) start and tell it their notices. */
    default void opened(SessionRuntime runtime) {}

    /** A session closed. */
    default void closed(SessionRuntime runtime) {}
}
