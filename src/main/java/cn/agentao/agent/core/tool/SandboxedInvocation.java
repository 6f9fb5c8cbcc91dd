package cn.agentao.agent.core.tool;

/**
 * A call that ran inside the OS sandbox and may be run again outside it when the sandbox stood in its way: its
 * result then carries {@link ToolSignal.SandboxDenied}.
 */
public interface SandboxedInvocation extends ToolInvocation {

    /** The same call, to run outside the sandbox (its {@link #permission()} says so). */
    ToolInvocation outsideSandbox();
}
