package cn.agentao.agent.permission;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What a tool call is about to do, as the permission engine judges it. Paths should be absolute (tools
 * resolve them with {@link Workspace#absolutize}); a relative path is taken relative to the workspace cwd.
 */
public sealed interface PermissionRequest {

    /** The tool's name, as user rules and remembered answers refer to it. */
    String tool();

    /** Reading a file or searching/listing a directory. */
    record ReadPath(String tool, Path path) implements PermissionRequest {
        public ReadPath { Objects.requireNonNull(tool); Objects.requireNonNull(path); }
    }

    /** Creating, changing or deleting a file. */
    record WritePath(String tool, Path path) implements PermissionRequest {
        public WritePath { Objects.requireNonNull(tool); Objects.requireNonNull(path); }
    }

    /**
     * Running {@code commandLine} with {@code bash -c} in {@code cwd}; {@code sandbox} false when it is to run
     * outside the OS sandbox (the model asked for that, or it failed inside for lack of access).
     */
    record RunCommand(String tool, String commandLine, Path cwd, boolean sandbox) implements PermissionRequest {
        public RunCommand { Objects.requireNonNull(tool); Objects.requireNonNull(commandLine); Objects.requireNonNull(cwd); }

        /** A command for the sandbox (when there is one). */
        public RunCommand(String tool, String commandLine, Path cwd) {
            this(tool, commandLine, cwd, true);
        }
    }

    /** Fetching a URL from the network. */
    record FetchUrl(String tool, String url) implements PermissionRequest {
        public FetchUrl { Objects.requireNonNull(tool); Objects.requireNonNull(url); }
    }

    /**
     * Anything else, described only by its effect; used for MCP tools (from their {@code readOnlyHint} and
     * {@code destructiveHint} annotations) and for built-ins with no effect outside the agent
     * ({@code readOnly=true}). {@code autoApply}: the tool's host says it may run without asking (an SMCP tool's
     * {@code a2c_tool_meta.auto_apply}); the user's rules and the read-only modes still apply. {@code subject}: who
     * the tool belongs to and its own name, when the tool's name alone does not say it (an SMCP tool, whose name is
     * sanitised and shortened), in words the user reads; remembered answers are kept per tool and subject, so they
     * never carry over to another owner whose tool got the same name. Null for the others.
     */
    record Generic(String tool, boolean readOnly, boolean destructive, boolean autoApply, String subject) implements PermissionRequest {
        public Generic { Objects.requireNonNull(tool); }

        public Generic(String tool, boolean readOnly, boolean destructive, boolean autoApply) {
            this(tool, readOnly, destructive, autoApply, null);
        }

        public Generic(String tool, boolean readOnly, boolean destructive) {
            this(tool, readOnly, destructive, false);
        }
    }
}
