package cn.agentao.agent.core.tool;

/**
 * The tool the user's own command lines go through (the terminal's {@code !command}), so that they take the same
 * sandbox, permission and display steps as the model's commands without posing as a model call.
 */
public interface ShellTool extends Tool {
    /** Prepares {@code commandLine} to run in the session's cwd with the tool's defaults. */
    ToolInvocation prepareCommand(String commandLine, ToolContext ctx) throws ToolException;
}
