package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * An MCP server's tool seen as one of ours, so it runs through the same display and permission steps. Only a
 * tool the server annotates read-only AND whose server the user marked trusted counts as read-only: servers
 * from the client are untrusted, so their tools are asked about.
 */
final class McpToolAdapter implements Tool {
    private final McpServerSet servers;
    private final McpTool tool;

    McpToolAdapter(McpServerSet servers, McpTool tool) {
        this.servers = servers;
        this.tool = tool;
    }

    @Override public String name() { return tool.name(); }
    @Override public String description() { return tool.specification().description(); }
    @Override public ObjectNode inputSchema() { return Json.object(); } // the model gets the server's schema from the set
    @Override public ToolKind kind() { return tool.kind(); }

    @Override
    public ToolInvocation prepare(JsonNode args, ToolContext ctx) {
        boolean readOnly = tool.safety().readOnly() && tool.safety().trustedServer();
        PermissionRequest permission = new PermissionRequest.Generic(tool.name(), readOnly, tool.safety().destructive());
        return new ToolInvocation() {
            @Override public String title() { return tool.title(); }
            @Override public List<ToolCallLocation> locations() { return List.of(); }
            @Override public PermissionRequest permission() { return permission; }

            @Override
            public ToolResult run(ToolProgress progress) throws Exception {
                McpToolResult r = servers.callTool(tool.name(), args, ctx.cancellation());
                List<ToolCallContent> display = r.content().stream()
                        .<ToolCallContent>map(b -> new ToolCallContent.Content(b, null)).toList();
                return new ToolResult(r.text(), display, r.isError(), null);
            }
        };
    }
}
