package cn.agentao.agent.door.acp;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.core.host.HostEnvironment;
import cn.agentao.agent.door.acp.protocol.ClientCapabilities;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.core.tool.FileAccess;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.core.tool.local.LocalFileAccess;
import cn.agentao.agent.core.tool.UserQuestions;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Files, commands and questions of an ACP session: through the client for each capability it advertised, locally otherwise.
 * Client file reads only with {@code fs.readTextFile}, client writes only with {@code fs.writeTextFile}, client
 * terminals only with {@code terminal} (for commands outside the sandbox, and for background commands in and out of
 * it, tied to the agent's life: {@link ClientTerminalBackground}; a sandboxed foreground command runs here, its output
 * streamed as the tool call's content), questions as elicitation forms with {@code elicitation.form}, else through the ask-user extension when advertised.
 */
record AcpEnvironment(ClientCapabilities caps, Calls client, String sessionId) implements HostEnvironment {

    /** A request to the client for this session, withdrawn when {@code cancel} fires. */
    @FunctionalInterface
    interface Calls {
        JsonNode call(String method, ObjectNode params, Cancellation cancel) throws Exception;
    }

    @Override
    public FileAccess files(Cancellation turn) {
        FileAccess local = new LocalFileAccess();
        FileAccess remote = new ClientFileAccess(requests(turn), sessionId);
        FileAccess reads = caps.readTextFile() ? remote : local;
        FileAccess writes = caps.writeTextFile() ? remote : local;
        return reads == writes ? reads : new SplitFileAccess(reads, writes);
    }

    @Override
    public CommandRunner commands(ChildEnvironment children, Cancellation turn) {
        return caps.terminal()
                ? new SandboxedHere(new LocalCommandRunner(children), new ClientTerminalRunner(requests(turn), sessionId, children),
                        // a background command outlives the turn: its requests are not withdrawn with it
                        spec -> ClientTerminalBackground.start(requests(Cancellation.NONE), sessionId, children, spec))
                : new LocalCommandRunner(children);
    }

    /** Questions as an {@code elicitation/create} form, else through the ask-user extension, as the client advertised; otherwise nobody can answer. */
    UserQuestions questions(Cancellation turn) {
        return caps.elicitationForm() ? new ElicitationQuestions(requests(turn), sessionId)
                : caps.askUser() ? new ClientUserQuestions(requests(turn), sessionId) : UserQuestions.UNAVAILABLE;
    }

    /** Requests to the client on behalf of one turn: withdrawn when it is cancelled. */
    ClientRequests requests(Cancellation turn) {
        return (method, params) -> client.call(method, params, turn);
    }

    /** Starts a background command in a client terminal. */
    @FunctionalInterface
    interface TerminalStarter {
        CommandRunner.Background start(CommandRunner.Spec spec) throws IOException, InterruptedException;
    }

    /**
     * Sandboxed commands run locally (the sandbox is here), the others in the client's terminal; background commands
     * in the client's terminal, in their sandbox, where they can be tied to the agent's life (else here).
     */
    private record SandboxedHere(CommandRunner local, CommandRunner terminal, TerminalStarter background) implements CommandRunner {
        @Override
        public Result run(Spec spec, Listener listener, Cancellation cancellation) throws IOException, InterruptedException {
            return (spec.sandbox() != null ? local : terminal).run(spec, listener, cancellation);
        }

        @Override
        public Background start(Spec spec) throws IOException, InterruptedException {
            return ClientTerminalBackground.available() ? background.start(spec) : local.start(spec);
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
