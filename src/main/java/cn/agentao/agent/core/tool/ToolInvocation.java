package cn.agentao.agent.core.tool;

import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.core.content.ToolCallLocation;

import java.util.List;

/** One prepared call of a tool: described, judged by the permission engine, then run (at most once). */
public interface ToolInvocation {
    /** A short human title, e.g. "Read src/Main.java (lines 1-200)", "Run `npm test`". */
    String title();

    /** Absolute paths (and lines) the call touches, so the editor can follow along. */
    List<ToolCallLocation> locations();

    /** What the permission engine judges. */
    PermissionRequest permission();

    /**
     * Runs the call. Must stop promptly on {@link Thread#interrupt()} and on the context's cancellation. Failures
     * the model should hear about are returned as an error result; exceptions are for the unexpected.
     */
    ToolResult run(ToolProgress progress) throws Exception;
}
