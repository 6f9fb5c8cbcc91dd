package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.content.ToolKind;
import dev.langchain4j.agent.tool.ToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * A tool of an MCP server as the model sees it.
 *
 * @param name          the namespaced name offered to the model, {@code mcp__<server>__<tool>}
 * @param server        the server's configured name
 * @param serverToolName the tool's own name on its server
 * @param specification name, description and JSON input schema for the model
 * @param safety        the tool's hints and its server's trust, for the permission engine
 */
public record McpTool(String name, String server, String serverToolName, ToolSpecification specification,
                      McpToolSafety safety) {

    static McpTool of(String name, String server, McpSchema.Tool tool, boolean trustedServer) {
        String description = tool.description() != null && !tool.description().isBlank() ? tool.description()
                : tool.title() != null ? tool.title() : tool.name();
        ToolSpecification spec = ToolSpecification.builder()
                .name(name)
                .description(description + " (MCP server \"" + server + "\")")
                .parameters(McpToolSchemas.parameters(tool.inputSchema()))
                .build();
        return new McpTool(name, server, tool.name(), spec, McpToolSafety.of(tool, trustedServer));
    }

    public ToolKind kind() { return safety.kind(); }

    /** What the client shows for a call: the tool's title when it has one, else the server and tool name. */
    public String title() {
        return safety.title() != null ? safety.title() : server + ": " + serverToolName;
    }
}
