package cn.agentao.agent.sandbox;

import java.util.Objects;

/** A sandbox and the policy one command runs under in it. */
public record Confinement(Sandbox sandbox, SandboxPolicy policy) {
    public Confinement {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(policy, "policy");
    }

    /** "bubblewrap (writable: …; network off)". */
    public String describe() {
        return sandbox.kind() + " (" + policy.describe() + ")";
    }
}
