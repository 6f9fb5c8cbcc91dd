package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.content.ToolKind;
import io.modelcontextprotocol.spec.McpSchema;

/**
 * What the permission engine may know about an MCP tool before running it: the tool's own hints (MCP
 * annotations, which are claims of the server, not guarantees) and whether the user trusts its server.
 * Missing hints take the MCP defaults, which assume the worst: not read-only, destructive, not idempotent,
 * reaching the outside world.
 *
 * @param title         a human-readable title (annotation or tool title), or null
 * @param readOnly      the tool claims not to modify its environment
 * @param destructive   the tool may delete or overwrite (only meaningful when not read-only)
 * @param idempotent    calling it again with the same arguments has no further effect
 * @param openWorld     it reaches entities outside a closed domain (the web, other systems)
 * @param annotated     the server sent hints at all (false: every value above is a default)
 * @param trustedServer the user marked the server trusted in a config file
 */
public record McpToolSafety(String title, boolean readOnly, boolean destructive, boolean idempotent,
                            boolean openWorld, boolean annotated, boolean trustedServer) {

    static McpToolSafety of(McpSchema.Tool tool, boolean trustedServer) {
        McpSchema.ToolAnnotations a = tool.annotations();
        String title = a != null && a.title() != null && !a.title().isBlank() ? a.title() : tool.title();
        if (a == null) return new McpToolSafety(title, false, true, false, true, false, trustedServer);
        boolean readOnly = Boolean.TRUE.equals(a.readOnlyHint());
        boolean destructive = !readOnly && !Boolean.FALSE.equals(a.destructiveHint());
        return new McpToolSafety(title, readOnly, destructive, Boolean.TRUE.equals(a.idempotentHint()),
                !Boolean.FALSE.equals(a.openWorldHint()), true, trustedServer);
    }

    /** The ACP kind the client shows: read-only tools read; other annotated tools edit; the rest are "other". */
    public ToolKind kind() {
        if (readOnly) return ToolKind.READ;
        return annotated ? ToolKind.EDIT : ToolKind.OTHER;
    }

    /** A short plain-words description for a permission prompt, e.g. "read-only; trusted server". */
    public String describe() {
        String effect = readOnly ? "read-only"
                : !annotated ? "may change anything (the server gives no hints)"
                : destructive ? "may modify or delete data" : "may modify data (not destructively)";
        return effect + (openWorld && annotated ? "; reaches outside systems" : "")
                + (trustedServer ? "; trusted server" : "; untrusted server");
    }
}
