package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.nio.file.Path;

/** An operating-system sandbox that can confine one shell command ({@code bash -c}) to a {@link SandboxPolicy}. */
public interface Sandbox {

    /** A short name: {@code bubblewrap}, {@code seatbelt}. */
    String kind();

    /**
     * Prepares one confined run of {@code bash -c commandLine} in {@code cwd}.
     *
     * @throws SandboxException when the policy cannot be enforced here (e.g. a protected path is a symbolic link)
     */
    SandboxLaunch prepare(String commandLine, Path cwd, SandboxPolicy policy) throws SandboxException;

    /** Whether {@code path} of this machine is hidden from a command run under {@code policy} (absent or empty inside). */
    default boolean hides(Path path, SandboxPolicy policy) { return false; }

    /** Why a command could not be confined; the command did not run. */
    final class SandboxException extends IOException {
        public SandboxException(String message) {
            super(message);
        }
    }
}
