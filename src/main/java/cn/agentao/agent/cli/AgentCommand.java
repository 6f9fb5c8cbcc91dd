package cn.agentao.agent.cli;

import cn.agentao.agent.acp.AcpAgent;
import cn.agentao.agent.engine.Engine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

@Command(name = "agent", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        description = {
                "A coding agent for editors that speak the Agent Client Protocol (ACP).",
                "",
                "Add it to your editor as an external agent, e.g. in Zed's settings.json:",
                "  \"agent_servers\": { \"agent\": { \"command\": \"/path/to/bin/agent\", \"args\": [\"--acp\"] } }",
                "",
                "Model provider (as Agentao): LLM_PROVIDER (default OPENAI) names a prefix; set",
                "{PREFIX}_API_KEY, and optionally {PREFIX}_MODEL, {PREFIX}_BASE_URL, LLM_TEMPERATURE,",
                "LLM_MAX_TOKENS, in the environment or a .env file in the project or ~/.config/agent/."
        })
public final class AgentCommand implements Callable<Integer> {

    @Option(names = "--acp", description = "Speak ACP (JSON-RPC 2.0, one message per line) on stdin/stdout.")
    boolean acp;

    @Option(names = "--resume", arity = "0..1", fallbackValue = "", paramLabel = "ID",
            description = "Make the first session/new reopen a saved session: the latest one for its cwd, or ID (or a unique prefix of it).")
    String resume;

    @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "${env:AGENT_LOG_LEVEL:-info}",
            description = "Log level: error, warn, info, debug or trace (default: ${DEFAULT-VALUE}). Logs go to stderr.")
    String logLevel;

    @Option(names = "--log-file", paramLabel = "FILE", description = "Write logs to FILE instead of stderr.")
    Path logFile;

    @Option(names = "--sessions-dir", paramLabel = "DIR",
            description = "Where conversations are kept (default: $AGENT_SESSIONS_DIR, else $XDG_DATA_HOME/agent/sessions).")
    Path sessionsDir;

    @Option(names = "--max-message-bytes", paramLabel = "BYTES", defaultValue = "104857600",
            description = "Largest ACP message accepted, in bytes (default: ${DEFAULT-VALUE}); a larger one is answered with an error.")
    long maxMessageBytes;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (!acp) {
            spec.commandLine().getErr().println("agent: nothing to do; start it with --acp from an ACP client (see --help).");
            return 2;
        }
        Logging.configure(logLevel, logFile);
        // Only protocol may reach stdout: keep the real stdout for the protocol writer, point System.out at stderr.
        OutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));

        Map<String, String> env = System.getenv();
        Engine engine = new Engine(env, ConfigDirs.configDir(env), new Engine.Features(false, false, false, false));
        AcpAgent agent = new AcpAgent(System.in, protocolOut, engine, Version.current(), maxMessageBytes);
        AtomicBoolean stopping = new AtomicBoolean();
        Runnable stop = () -> {
            if (stopping.compareAndSet(false, true)) agent.shutdown(Duration.ofMillis(1500));
        };
        Signals.onTerminate(() -> {
            stop.run();
            Runtime.getRuntime().halt(0);
        });
        agent.serve(Duration.ofMillis(1500));
        stopping.set(true);
        return 0;
    }
}
