package cn.agentao.agent.connect.mcp;

import java.time.Duration;

/**
 * How long MCP work may take.
 *
 * @param startup  from starting a server to its tools and prompts being listed
 * @param request  one listing or prompt request
 * @param toolCall one tool call (the user can cancel sooner)
 * @param shutdown how long a stdio server gets to exit after its input closes, before it is killed
 */
public record McpTimeouts(Duration startup, Duration request, Duration toolCall, Duration shutdown) {
    public static final McpTimeouts DEFAULT = new McpTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(60),
            Duration.ofMinutes(10), Duration.ofSeconds(2));
}
