package cn.agentao.agent.tools;

import java.nio.file.Path;
import java.util.List;

/** A plain {@link ToolContext}. */
public record SimpleToolContext(String sessionId, Path cwd, List<Path> roots, FileAccess files,
                                CommandRunner commands, UserQuestions questions,
                                CancellationSignal cancellation) implements ToolContext {

    public SimpleToolContext {
        roots = List.copyOf(roots);
    }

}
