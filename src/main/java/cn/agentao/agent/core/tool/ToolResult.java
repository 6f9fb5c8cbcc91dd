package cn.agentao.agent.core.tool;

import cn.agentao.agent.core.content.ToolCallContent;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * What a call produced.
 *
 * @param forModel  the text the model reads
 * @param display   what the client shows (replaces anything shown as progress)
 * @param isError   whether the call failed (the tool call is reported as failed)
 * @param rawOutput structured output for the client's {@code rawOutput}, or null (the core reads nothing in it)
 * @param signal    what the core must act on besides the text (a sandbox denial, a new plan), or null
 */
public record ToolResult(String forModel, List<ToolCallContent> display, boolean isError, JsonNode rawOutput,
                         ToolSignal signal) {

    public ToolResult {
        display = display == null ? List.of() : List.copyOf(display);
    }

    /** A result with no signal for the core. */
    public ToolResult(String forModel, List<ToolCallContent> display, boolean isError, JsonNode rawOutput) {
        this(forModel, display, isError, rawOutput, null);
    }

    public static ToolResult success(String forModel) {
        return new ToolResult(forModel, List.of(), false, null);
    }

    /** A failure explained to the model and shown to the user. */
    public static ToolResult error(String message) {
        return new ToolResult(message, List.of(ToolCallContent.text(message)), true, null);
    }
}
