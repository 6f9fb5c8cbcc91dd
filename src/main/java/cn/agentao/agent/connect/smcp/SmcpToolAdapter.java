package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.connect.mcp.McpToolResult;
import cn.agentao.agent.permission.PermissionRequest;
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
 * A Computer's tool seen as one of ours, so it runs through the same display and permission steps as any tool:
 * read-only when its MCP annotations say so (the office is the user's own choice, in their config.json), asked
 * about otherwise unless its Computer marks it {@code auto_apply} (which the read-only modes and the user's
 * rules still override).
 */
public final class SmcpToolAdapter implements Tool {
    private final SmcpOffice office;
    private final SmcpTool tool;

    public SmcpToolAdapter(SmcpOffice office, SmcpTool tool) {
        this.office = office;
        this.tool = tool;
    }

    @Override public String name() { return tool.name(); }
    @Override public String description() { return tool.description(); }
    @Override public ObjectNode inputSchema() { return tool.schema().deepCopy(); }
    @Override public ToolKind kind() { return tool.readOnly() ? (tool.kind() == SmcpTool.Kind.TOOL ? ToolKind.READ : ToolKind.FETCH) : ToolKind.OTHER; }

    /**
     * Whose tool this is, for remembered answers: the office, the Computer and the tool by their own names (JSON
     * quoted, so no name can pose as another), not the sanitised name the model sees.
     */
    static String subject(String office, SmcpTool tool) {
        return quoted(tool.remoteName()) + " on Computer " + quoted(tool.computer()) + " in office " + quoted(office);
    }

    private static String quoted(String s) {
        return com.fasterxml.jackson.databind.node.TextNode.valueOf(s).toString();
    }

    @Override
    public ToolInvocation prepare(JsonNode args, ToolContext ctx) {
        PermissionRequest permission = new PermissionRequest.Generic(tool.name(), tool.readOnly(), tool.destructive(), tool.autoApply(),
                subject(office.config().office(), tool));
        return new ToolInvocation() {
            @Override public String title() { return tool.remoteName() + " on " + tool.computer(); }
            @Override public List<ToolCallLocation> locations() { return List.of(); }
            @Override public PermissionRequest permission() { return permission; }

            @Override
            public ToolResult run(ToolProgress progress) throws Exception {
                McpToolResult r = office.call(tool, args, ctx.cancellation());
                List<ToolCallContent> display = r.content().stream()
                        .<ToolCallContent>map(b -> new ToolCallContent.Content(b, null)).toList();
                return new ToolResult(r.text(), display, r.isError(), null);
            }
        };
    }
}
