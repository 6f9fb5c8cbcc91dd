package cn.agentao.agent.tools;

import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.permission.Workspace;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/** Paths from arguments, and paths as shown back. */
public final class ToolPaths {
    private ToolPaths() {}

    /**
     * The absolute, normalized path an argument names: {@code ~} is home, relative is under the cwd. The
     * permission engine judges exactly this path (resolving links itself) and the tool then uses exactly it.
     */
    public static Path resolve(ToolContext ctx, String tool, String argument, String raw) throws ToolException {
        if (raw == null || raw.isBlank()) throw new ToolException(tool + ": '" + argument + "' must not be empty");
        try {
            return Workspace.absolutize(ctx.cwd(), raw.strip()).normalize();
        } catch (InvalidPathException e) {
            throw new ToolException(tool + ": '" + raw + "' is not a valid path: " + e.getReason());
        }
    }

    /** The path relative to the cwd when it is inside, absolute otherwise; with '/' separators. */
    public static String display(ToolContext ctx, Path path) {
        Path cwd = ctx.cwd().normalize();
        if (path.startsWith(cwd)) {
            String rel = cwd.relativize(path).toString();
            return rel.isEmpty() ? "." : rel;
        }
        return path.toString();
    }
}
