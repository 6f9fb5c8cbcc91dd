package cn.agentao.agent.core.tool;

/** A call that ran inside the OS sandbox and may be run again outside it when the sandbox stood in its way. */
public interface SandboxedInvocation extends ToolInvocation {

    /** Whether {@code result} (of this invocation) is a failure for lack of access inside the sandbox. */
    boolean deniedBySandbox(ToolResult result);

    /** The same call, to run outside the sandbox (its {@link #permission()} says so). */
    ToolInvocation outsideSandbox();
}
