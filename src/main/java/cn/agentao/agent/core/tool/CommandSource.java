package cn.agentao.agent.core.tool;

import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;

import java.util.List;

/** Slash commands a connector gives a session (MCP prompts): each expands into a prompt for the model. */
public interface CommandSource {
    List<AvailableCommand> commands();

    boolean hasCommand(String name);

    /** The prompt {@code /name arguments} stands for; a ToolException's message is shown to the user. */
    String prompt(String name, String arguments, Cancellation cancel) throws ToolException, CancelledException;
}
