package cn.agentao.agent.connect.mcp;


import cn.agentao.agent.core.tool.McpServerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One MCP server to run for a session: its connection settings (the ACP {@code mcpServers} shape), where it was
 * declared, and whether the user marked it trusted. Only the user's config file can mark a server trusted.
 */
public record McpServerDefinition(McpServerConfig config, Origin origin, boolean trusted) {

    /** Where a server was declared; later origins override earlier ones on a name clash. */
    public enum Origin {
        USER_CONFIG("user config"), PROJECT_CONFIG("project config"), CLIENT("client");

        private final String label;

        Origin(String label) { this.label = label; }

        public String label() { return label; }
    }

    public McpServerDefinition {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(origin, "origin");
    }

    /** A server from the client's session request: never trusted. */
    public static McpServerDefinition fromClient(McpServerConfig config) {
        return new McpServerDefinition(config, Origin.CLIENT, false);
    }

    public static List<McpServerDefinition> fromClient(List<McpServerConfig> configs) {
        List<McpServerDefinition> out = new ArrayList<>();
        if (configs != null) for (McpServerConfig c : configs) out.add(fromClient(c));
        return out;
    }

    public String name() { return config.name(); }

    /** The values that may be secrets (env values, header values): never shown to the user or logged. */
    List<String> secretValues() {
        List<String> out = new ArrayList<>();
        if (config.env() != null) config.env().forEach(nv -> out.add(nv.value()));
        if (config.headers() != null) config.headers().forEach(nv -> out.add(nv.value()));
        return out;
    }
}
