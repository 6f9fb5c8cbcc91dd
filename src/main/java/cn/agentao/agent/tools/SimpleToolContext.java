package cn.agentao.agent.tools;

import cn.agentao.agent.util.Cancellation;

import cn.agentao.agent.permission.Workspace;

import java.nio.file.Path;
import java.util.List;

/** A plain {@link ToolContext}. */
public record SimpleToolContext(String sessionId, Path cwd, List<Path> roots, FileAccess files,
                                CommandRunner commands, UserQuestions questions,
                                Cancellation cancellation) implements ToolContext {

    public SimpleToolContext {
        roots = List.copyOf(roots);
    }

    public static SimpleToolContext of(String sessionId, Workspace workspace, ToolEnvironment env,
                                       Cancellation cancellation) {
        return new SimpleToolContext(sessionId, workspace.cwd(), workspace.roots(), env.files(), env.commands(),
                env.questions(), cancellation);
    }
}
