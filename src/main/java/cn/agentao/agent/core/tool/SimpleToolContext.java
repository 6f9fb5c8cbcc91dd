package cn.agentao.agent.core.tool;

import cn.agentao.agent.util.Cancellation;

import cn.agentao.agent.permission.Workspace;
import cn.agentao.agent.sandbox.Confinement;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * A plain {@link ToolContext}.
 *
 * @param sandboxes looked up when a command asks for it (finding out whether a sandbox works takes a trial run)
 */
public record SimpleToolContext(String sessionId, Path cwd, List<Path> roots, FileAccess files,
                                CommandRunner commands, UserQuestions questions,
                                Cancellation cancellation, Supplier<Confinement> sandboxes,
                                BackgroundProcesses background) implements ToolContext {

    public SimpleToolContext {
        roots = List.copyOf(roots);
        if (sandboxes == null) sandboxes = () -> null;
    }

    /** No commands in the background. */
    public SimpleToolContext(String sessionId, Path cwd, List<Path> roots, FileAccess files, CommandRunner commands,
                             UserQuestions questions, Cancellation cancellation, Supplier<Confinement> sandboxes) {
        this(sessionId, cwd, roots, files, commands, questions, cancellation, sandboxes, null);
    }

    /** Commands run unconfined. */
    public SimpleToolContext(String sessionId, Path cwd, List<Path> roots, FileAccess files, CommandRunner commands,
                             UserQuestions questions, Cancellation cancellation) {
        this(sessionId, cwd, roots, files, commands, questions, cancellation, null);
    }

    public static SimpleToolContext of(String sessionId, Workspace workspace, ToolEnvironment env,
                                       Cancellation cancellation, Supplier<Confinement> sandbox) {
        return of(sessionId, workspace, env, cancellation, sandbox, null);
    }

    public static SimpleToolContext of(String sessionId, Workspace workspace, ToolEnvironment env,
                                       Cancellation cancellation, Supplier<Confinement> sandbox, BackgroundProcesses background) {
        return new SimpleToolContext(sessionId, workspace.cwd(), workspace.roots(), env.files(), env.commands(),
                env.questions(), cancellation, sandbox, background);
    }

    @Override
    public Confinement sandbox() { return sandboxes.get(); }
}
