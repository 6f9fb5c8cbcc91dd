package cn.agentao.agent.core.tool;

import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A tool the model can call. Implementations are stateless and shared by all sessions. */
public interface Tool {
    /** The name the model calls it by, e.g. {@code read_file}. */
    String name();

    /** What it does and when to use it, for the model. */
    String description();

    /** JSON Schema of the arguments (a fresh copy; callers may modify it). */
    ObjectNode inputSchema();

    /** The ACP category, for the client's icon. */
    ToolKind kind();

    /** Validates args (throw ToolException with a message for the model on bad args) and describes the call. */
    ToolInvocation prepare(JsonNode args, ToolContext ctx) throws ToolException;
}
