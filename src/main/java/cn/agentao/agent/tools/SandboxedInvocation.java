package cn.agentao.agent.tools;

import java.nio.file.Path;
import java.util.List;

/** A call that ran inside the OS sandbox and may be run again outside it when the sandbox stood in its way. */
public interface SandboxedInvocation extends ToolInvocation {

    /** Whether {@code result} (of this invocation) is a failure for lack of access inside the sandbox. */
    boolean deniedBySandbox(ToolResult result);

    /** The same call, to run outside the sandbox (its {@link #permission()} says so). */
    ToolInvocation outsideSandbox();

    /**
     * The paths of this machine that {@code result} (a failure of this invocation in a read-only sandbox) shows the
     * command could not read because the sandbox hides them; empty when it failed for other reasons.
     */
    default List<Path> hiddenReads(ToolResult result) { return List.of(); }

    /** The same call, to run again in the same read-only sandbox with {@code path} shown read-only as well. */
    default ToolInvocation withReadable(Path path) { throw new UnsupportedOperationException("no sandbox to widen"); }
}
