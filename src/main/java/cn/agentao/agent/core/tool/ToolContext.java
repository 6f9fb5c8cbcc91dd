package cn.agentao.agent.core.tool;

import cn.agentao.agent.sandbox.Confinement;
import cn.agentao.agent.util.Cancellation;

import java.nio.file.Path;
import java.util.List;

/** The session a call runs in. */
public interface ToolContext {
    String sessionId();

    /** The session cwd (absolute); relative paths in arguments are resolved against it. */
    Path cwd();

    /** The workspace roots: the cwd first, then any additional directories. */
    List<Path> roots();

    FileAccess files();

    CommandRunner commands();

    UserQuestions questions();

    Cancellation cancellation();

    /** The OS sandbox commands run in by default in this session's mode, or null when they run unconfined. */
    default Confinement sandbox() { return null; }

    /** The session's background commands, or null when commands cannot run in the background here. */
    default BackgroundProcesses background() { return null; }
}
