package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.util.Json;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.ArrayList;
import java.util.List;

/**
 * The outcome of an MCP tool call.
 *
 * @param text    what the model reads: the text parts, with images, audio, links and resources described
 * @param content what the user sees, as ACP content blocks (images stay images, links stay links)
 * @param isError the tool failed (reported by the server, or the call could not be made)
 */
public record McpToolResult(String text, List<ContentBlock> content, boolean isError) {
    static final String NO_CONTENT = "(the tool returned no content)";

    public static McpToolResult of(McpSchema.CallToolResult result) {
        List<ContentBlock> blocks = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        if (result.content() != null) {
            for (McpSchema.Content c : result.content()) {
                blocks.add(McpContent.toBlock(c));
                texts.add(McpContent.toText(c));
            }
        }
        if (texts.isEmpty() && result.structuredContent() != null) {
            String json = Json.mapper().valueToTree(result.structuredContent()).toString();
            blocks.add(ContentBlock.text(json));
            texts.add(json);
        }
        String text = texts.isEmpty() ? NO_CONTENT : String.join("\n", texts);
        return new McpToolResult(text, List.copyOf(blocks), Boolean.TRUE.equals(result.isError()));
    }

    /** A call that could not be made or did not finish: the message is for both the model and the user. */
    public static McpToolResult error(String message) {
        return new McpToolResult(message, List.of(ContentBlock.text(message)), true);
    }
}
