package cn.agentao.agent.cli;

import cn.agentao.agent.door.acp.AcpAgent;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.tool.Connector;
import cn.agentao.agent.door.agora.AgoraToolSource;
import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.util.BuildVersion;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/** Starts the agent in ACP mode: the stdio front door over the engine. */
public final class AcpLaunch {
    public static final String ACP = "--acp";
    /** Agentao's launch line is {@code agentao --acp --stdio}: accepted, since ACP is always spoken on stdio. */
    public static final String STDIO = "--stdio";
    public static final String RESUME = "--resume";
    public static final String LOG_LEVEL = "--log-level";
    public static final String LOG_FILE = "--log-file";
    public static final String SESSIONS_DIR = "--sessions-dir";
    public static final String MAX_MESSAGE_BYTES = "--max-message-bytes";
    public static final long DEFAULT_MAX_MESSAGE_BYTES = 100L * 1024 * 1024;

    /** The ACP-mode settings; {@code resume} is null (no resume), "" (latest for the cwd) or an id/prefix. */
    public record Options(String resume, String logLevel, Path logFile, Path sessionsDir, long maxMessageBytes, StoreOptions store) {}

    private AcpLaunch() {}

    static String defaultLogLevel() {
        String env = System.getenv("AGENT_LOG_LEVEL");
        return env == null || env.isBlank() ? "info" : env;
    }

    /**
     * Reads {@code --acp} with the ACP options ({@code --opt value} or {@code --opt=value}); returns null for
     * anything else, which then goes to Picocli.
     */
    static Options parse(String[] args) {
        boolean acp = false;
        String resume = null, level = defaultLogLevel();
        Path logFile = null, sessions = null;
        long max = DEFAULT_MAX_MESSAGE_BYTES;
        StoreOptions store = new StoreOptions();
        try {
            ArgCursor arg = new ArgCursor(args);
            while (arg.next()) {
                String name = arg.name();
                switch (name) {
                    case ACP -> { if (arg.hasInlineValue()) return null; acp = true; }
                    case STDIO -> { if (arg.hasInlineValue()) return null; }
                    case RESUME -> {
                        resume = arg.optionalValue();
                    }
                    case LOG_LEVEL, LOG_FILE, SESSIONS_DIR, MAX_MESSAGE_BYTES -> {
                        String v = arg.value();
                        if (v == null) return null;
                        switch (name) {
                            case LOG_LEVEL -> level = v;
                            case LOG_FILE -> logFile = Path.of(v);
                            case SESSIONS_DIR -> sessions = Path.of(v);
                            default -> {
                                max = Long.parseLong(v);
                                if (max < 1024) return null;
                            }
                        }
                    }
                    default -> {
                        if (!StoreOptions.isOption(name)) return null;
                        String v = arg.value();
                        if (v == null) return null;
                        store.accept(name, v);
                    }
                }
            }
        } catch (NumberFormatException | InvalidPathException e) {
            return null;
        }
        if (!acp || !Logging.isLevel(level)) return null;
        return new Options(resume, level, logFile, sessions, max, store);
    }

    /**
     * The ACP agent over {@code in}/{@code out}, configured from {@code env}. The version comes from {@link BuildVersion},
     * not cli/Version: that one is Picocli's version provider, and loading Picocli's interface here opened four jars
     * (the class path is searched in order) and ran the old bytecode verifier before {@code session/new}.
     */
    static AcpAgent agent(Options options, Map<String, String> env, java.io.InputStream in, OutputStream out) {
        AgentConfig config = AgentConfig.load(env, options.store().commandLine(options.sessionsDir()));
        SessionService sessions = CoreFactory.create(config);
        // editor sessions only (not in CoreFactory): in an Agora space these tools would let one space's messages
        // read or talk in another space
        AgoraToolSource.fromConfig(config, BuildVersion.current())
                .ifPresent(agora -> sessions.addConnector(Connector.shared(agora)));
        return new AcpAgent(in, out, sessions, AcpAgent.Features.ALL, options.resume(), BuildVersion.current(),
                options.maxMessageBytes());
    }

    /** Serves ACP on stdin/stdout until end of input or SIGTERM; returns the exit code. */
    static int run(Options options) {
        Logging.configure(options.logLevel(), options.logFile());
        // Only protocol may reach stdout: keep the real stdout for the protocol writer, point System.out at stderr.
        OutputStream protocolOut = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        if (cn.agentao.agent.door.terminal.Terminals.stdinIsTerminal()) { // a person, not an editor: say what this is
            System.err.println("agent: --acp speaks the Agent Client Protocol (JSON-RPC 2.0, one message per line) on "
                    + "stdin/stdout, for an editor to start. To chat in this terminal, run bin/agent without --acp. "
                    + "Ctrl-D ends this.");
        }

        AcpAgent agent = agent(options, System.getenv(), System.in, protocolOut);
        AtomicBoolean stopping = new AtomicBoolean();
        Signals.onTerminate(() -> {
            if (stopping.compareAndSet(false, true)) agent.shutdown(Duration.ofMillis(1500));
            Runtime.getRuntime().halt(0);
        });
        agent.serve(Duration.ofMillis(1500));
        stopping.set(true);
        return 0;
    }
}
