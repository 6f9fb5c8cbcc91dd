package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.core.tool.Tool;
import dev.langchain4j.agent.tool.ToolSpecification;

import java.util.List;
import java.util.Optional;

/** A session's MCP servers as one tool source: the tools of the servers that are ready now. */
public final class McpToolSource implements ToolSource {
    private final McpServerSet servers;

    public McpToolSource(McpServerSet servers) {
        this.servers = servers;
    }

    @Override public String name() { return "mcp"; }

    @Override public List<ToolSpecification> specifications() { return servers.toolSpecifications(); }

    @Override
    public Optional<Tool> tool(String name) {
        return servers.tool(name).map(t -> new McpToolAdapter(servers, t));
    }
}
