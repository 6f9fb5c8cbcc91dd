package cn.agentao.agent.core.tool;

/**
 * A call that ran inside the OS sandbox and may be run again outside it, or with a hidden path shown, when the
 * sandbox stood in its way: its result then carries {@link ToolSignal.SandboxDenied}.
 */
public interface SandboxedInvocation extends ToolInvocation {

    /** The same call, to run outside the sandbox (its {@link #permission()} says so). */
    ToolInvocation outsideSandbox();

    /** The same call, to run again in the same read-only sandbox with {@code path} shown read-only as well. */
    ToolInvocation withReadable(java.nio.file.Path path);
}
