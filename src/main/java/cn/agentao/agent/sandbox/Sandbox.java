package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

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

    /** Directories that look empty inside (their contents hidden), unless they hold a workspace root. */
    default List<Path> hiddenDirectories() { return List.of(); }

    /** Why a command could not be confined; the command did not run. */
    final class SandboxException extends IOException {
        public SandboxException(String message) {
            super(message);
        }
    }
}
