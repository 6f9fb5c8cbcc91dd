package cn.agentao.agent.tools;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.protocol.ClientCapabilities;
import cn.agentao.agent.util.Cancellation;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Where a session's tools read and write files, run commands and ask questions: through the client for each
 * capability it advertised, locally otherwise.
 */
public record ToolEnvironment(FileAccess files, CommandRunner commands, UserQuestions questions) {

    /** Everything on this machine; nobody to ask. */
    public static ToolEnvironment local() {
        return new ToolEnvironment(new LocalFileAccess(), new LocalCommandRunner(), UserQuestions.UNAVAILABLE);
    }

    /**
     * Client file reads only with {@code fs.readTextFile}, client writes only with {@code fs.writeTextFile},
     * client terminals only with {@code terminal} (and only for commands outside the sandbox: a sandboxed
     * command runs here, its output streamed as the tool call's content), questions as elicitation forms with
     * {@code elicitation.form}, else through the ask-user extension when advertised.
     */
    public static ToolEnvironment forClient(ClientCapabilities caps, ClientRequests client, String sessionId) {
        return forClient(caps, client, sessionId, ChildEnvironment.ofAgent(java.util.List.of()));
    }

    /** As above; commands run with {@code children} as their environment. */
    public static ToolEnvironment forClient(ClientCapabilities caps, ClientRequests client, String sessionId,
                                            ChildEnvironment children) {
        FileAccess local = new LocalFileAccess();
        FileAccess remote = new ClientFileAccess(client, sessionId);
        FileAccess reads = caps.readTextFile() ? remote : local;
        FileAccess writes = caps.writeTextFile() ? remote : local;
        FileAccess files = reads == writes ? reads : new SplitFileAccess(reads, writes);
        CommandRunner commands = caps.terminal()
                ? new SandboxedHere(new LocalCommandRunner(children), new ClientTerminalRunner(client, sessionId, children))
                : new LocalCommandRunner(children);
        UserQuestions questions = caps.elicitationForm() ? new ElicitationQuestions(client, sessionId)
                : caps.askUser() ? new ClientUserQuestions(client, sessionId) : UserQuestions.UNAVAILABLE;
        return new ToolEnvironment(files, commands, questions);
    }

    /** Sandboxed commands run locally (the sandbox is here), the others in the client's terminal. */
    private record SandboxedHere(CommandRunner local, CommandRunner terminal) implements CommandRunner {
        @Override
        public Result run(Spec spec, Listener listener, Cancellation cancellation) throws IOException, InterruptedException {
            return (spec.sandbox() != null ? local : terminal).run(spec, listener, cancellation);
        }
    }

    /** Reads from one place, writes to another. */
    private record SplitFileAccess(FileAccess reads, FileAccess writes) implements FileAccess {
        @Override
        public String readText(Path path, Integer line, Integer limit) throws IOException {
            return reads.readText(path, line, limit);
        }

        @Override
        public void writeText(Path path, String content) throws IOException {
            writes.writeText(path, content);
        }
    }
}
