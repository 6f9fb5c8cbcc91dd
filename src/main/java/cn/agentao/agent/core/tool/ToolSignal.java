package cn.agentao.agent.core.tool;

import cn.agentao.agent.core.content.PlanEntry;

import java.util.List;

/**
 * What the core must learn from a call besides its text, typed (as codex's exec and patch events are): never read out
 * of the client's {@code rawOutput}, which any tool source (an MCP server, a remote agent) fills as it likes.
 */
public sealed interface ToolSignal {
    /**
     * The call failed inside the OS sandbox for lack of access; when its invocation is a {@link SandboxedInvocation}
     * the core may offer to run it again outside (workspace-write), or, in a read-only sandbox, with one of
     * {@code hiddenReads} shown read-only.
     *
     * @param hiddenReads the paths of this machine it could not read because the sandbox hides them (existing files
     *                    or directories), in the order met; empty when it failed for other reasons
     */
    record SandboxDenied(List<java.nio.file.Path> hiddenReads) implements ToolSignal {
        public SandboxDenied {
            hiddenReads = List.copyOf(hiddenReads);
        }
    }

    /** The session's plan as the call left it (the whole list); the core shows it to the user and records it. */
    record Plan(List<PlanEntry> entries) implements ToolSignal {
        public Plan {
            entries = List.copyOf(entries);
        }
    }

    /**
     * An image for the model to see beside the text (a picture {@code read_file} read): the core sends it in the next
     * request, as the part of a user message that follows the tool results (which not every provider lets carry one).
     *
     * @param data base64 of the file's bytes
     */
    record Image(String mimeType, String data) implements ToolSignal {}
}
