package cn.agentao.agent.engine;

import cn.agentao.agent.util.Cancellation;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ToolExecutionResultMessage;

import java.util.List;
import java.util.Map;

/** Builds the tool-call runner of a process (built-in tools land with the tools layer). */
public final class ToolCalls {
    private ToolCalls() {}

    public static ToolCallRunner create(Map<String, String> env) {
        return new ToolCallRunner() {
            @Override
            public List<ToolSpecification> specifications(SessionRuntime runtime) { return List.of(); }

            @Override
            public ToolExecutionResultMessage run(SessionRuntime runtime, ToolExecutionRequest call, Cancellation cancel) {
                return ToolExecutionResultMessage.from(call, "Error: no tool named " + call.name() + ".");
            }
        };
    }
}
