package cn.agentao.agent.core.host;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.core.tool.FileAccess;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.core.tool.local.LocalFileAccess;
import cn.agentao.agent.util.Cancellation;

/**
 * Where a session's tools read and write files and run commands. {@link #LOCAL}: this machine. The ACP door
 * supplies the client's file system and terminals where the client offers them. Asked once per tool call;
 * {@code turn} is the turn's cancellation, which withdraws whatever the door asked a remote side for that call.
 */
public interface HostEnvironment {
    /** Files as the tools see them. */
    FileAccess files(Cancellation turn);

    /** Runs commands; {@code children} is the environment (variables, credentials hidden) the core prepared for them. */
    CommandRunner commands(ChildEnvironment children, Cancellation turn);

    HostEnvironment LOCAL = new HostEnvironment() {
        private final FileAccess files = new LocalFileAccess();

        @Override public FileAccess files(Cancellation turn) { return files; }

        @Override public CommandRunner commands(ChildEnvironment children, Cancellation turn) { return new LocalCommandRunner(children); }
    };
}
