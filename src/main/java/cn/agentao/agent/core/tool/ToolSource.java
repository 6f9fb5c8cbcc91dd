package cn.agentao.agent.core.tool;

import dev.langchain4j.agent.tool.ToolSpecification;

import java.util.List;
import java.util.Optional;

/**
 * Somewhere tools come from: the built-ins, a session's MCP servers, an SMCP Computer, a remote A2A agent. The
 * turn asks every source before each model call (so a source's list may change between calls) and runs a call
 * through the first source that has a tool of that name; each tool then goes through the same display,
 * permission and result steps whatever its source. Modelled on LangChain4j's {@code ToolProvider}.
 *
 * <p>Register process-wide with {@link cn.agentao.agent.core.SessionService#addToolSource}, or for one session
 * with {@link cn.agentao.agent.core.Session#addToolSource}. Implementations must be thread-safe.
 */
public interface ToolSource {
    /** A short name for logs, e.g. {@code builtin}, {@code mcp}, {@code smcp:computer-1}. */
    String name();

    /** The tools offered to the model now. */
    List<ToolSpecification> specifications();

    /** The tool the model called by {@code name}, if this source has it now. */
    Optional<Tool> tool(String name);
}
