package cn.agentao.agent.core.tool;

import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.core.tool.local.LocalFileAccess;

/**
 * Where a session's tools read and write files, run commands and ask questions (the core builds it from the
 * session's host: the local machine, or what the front door supplies).
 */
public record ToolEnvironment(FileAccess files, CommandRunner commands, UserQuestions questions) {

    /** Everything on this machine; nobody to ask. */
    public static ToolEnvironment local() {
        return new ToolEnvironment(new LocalFileAccess(), new LocalCommandRunner(), UserQuestions.UNAVAILABLE);
    }
}
