package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.content.AvailableCommand;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.List;

/**
 * An MCP prompt offered as a slash command.
 *
 * @param name   the command name, {@code mcp.<server>.<prompt>}
 * @param server the server's configured name
 * @param prompt the prompt as the server lists it
 */
public record McpPromptCommand(String name, String server, McpSchema.Prompt prompt) {

    public AvailableCommand toAvailableCommand() {
        String about = prompt.description() != null && !prompt.description().isBlank() ? prompt.description()
                : prompt.title() != null && !prompt.title().isBlank() ? prompt.title() : prompt.name();
        List<McpSchema.PromptArgument> args = arguments();
        return new AvailableCommand(name, about + " (MCP server \"" + server + "\")",
                args.isEmpty() ? null : McpPromptArguments.usage(args));
    }

    /**
     * The text a prompt's messages make for the model: their text (resources and images described as for tool
     * results), in order, with "User:"/"Assistant:" labels when both roles occur; then {@code extraText}.
     */
    static String text(McpSchema.GetPromptResult result, String extraText) {
        List<McpSchema.PromptMessage> messages = result.messages() == null ? List.of() : result.messages();
        boolean labelled = messages.stream().map(McpSchema.PromptMessage::role).distinct().count() > 1;
        StringBuilder out = new StringBuilder();
        for (McpSchema.PromptMessage m : messages) {
            if (!out.isEmpty()) out.append("\n\n");
            if (labelled) out.append(m.role() == McpSchema.Role.ASSISTANT ? "Assistant: " : "User: ");
            out.append(McpContent.toText(m.content()));
        }
        if (extraText != null && !extraText.isBlank()) {
            if (!out.isEmpty()) out.append("\n\n");
            out.append(extraText.strip());
        }
        return out.toString();
    }

    List<McpSchema.PromptArgument> arguments() {
        return prompt.arguments() == null ? List.of() : prompt.arguments();
    }
}
