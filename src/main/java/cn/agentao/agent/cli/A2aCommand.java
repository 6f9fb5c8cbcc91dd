package cn.agentao.agent.cli;

import cn.agentao.agent.childenv.CredentialNames;
import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.door.a2a.A2aServer;
import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.tools.BuiltinTools;
import cn.agentao.agent.util.BuildVersion;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** {@code agent a2a serve}: the agent as an A2A server for other agents. */
@Command(name = "a2a", mixinStandardHelpOptions = true, description = "Serve this agent to other agents over the Agent2Agent (A2A) protocol.",
        subcommands = A2aCommand.Serve.class)
public final class A2aCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() { spec.commandLine().usage(spec.commandLine().getErr()); }

    @Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Serve this agent over A2A 0.3 (JSON-RPC over HTTP, Server-Sent Events) until SIGTERM.",
                    "Each A2A context is a saved session (see `agent sessions list`, `--resume`)."})
    public static final class Serve implements java.util.concurrent.Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--port", required = true, paramLabel = "PORT", description = "The TCP port to listen on (0: any free port, which the log line names).")
        int port;

        @Option(names = "--host", defaultValue = "127.0.0.1", paramLabel = "HOST",
                description = "Address to bind (default: ${DEFAULT-VALUE}); anything but loopback needs --token-env.")
        String host;

        @Option(names = "--allowed-host", paramLabel = "NAME",
                description = {"Also accept requests whose Host header is NAME (any port) or NAME:PORT, e.g. behind a reverse proxy; "
                        + "repeatable. By default only the bound address (on loopback: localhost, 127.0.0.1, [::1]) with its port."})
        List<String> allowedHosts = new ArrayList<>();

        @Option(names = "--allowed-origin", paramLabel = "ORIGIN",
                description = {"Let web pages at ORIGIN (scheme://host[:port]) call the server (CORS); repeatable. "
                        + "By default every request with an Origin header (a browser's) is refused."})
        List<String> allowedOrigins = new ArrayList<>();

        @Option(names = "--cwd", paramLabel = "DIR", description = "The project the agent works in (default: the current directory).")
        Path cwd;

        @Option(names = "--token-env", paramLabel = "VAR",
                description = "Require `Authorization: Bearer <value of VAR>` on every request but the agent card.")
        String tokenEnv;

        @Option(names = "--mode", defaultValue = "workspace-write", paramLabel = "MODE",
                description = "Permission mode of the sessions: read-only, workspace-write, full-access or plan (default: ${DEFAULT-VALUE}).")
        String mode;

        @Option(names = "--idle-close", defaultValue = "600", paramLabel = "SECONDS",
                description = "Close a context's session after this many idle seconds (it reopens on its next message; "
                        + "an editor can --resume it meanwhile); 0: never (default: ${DEFAULT-VALUE}).")
        long idleClose;

        @Option(names = "--sessions-dir", paramLabel = "DIR", description = "Session store directory (default as for --acp).")
        Path sessionsDir;

        @Mixin
        StoreOptions store = new StoreOptions();

        @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "${env:AGENT_LOG_LEVEL:-warn}",
                description = "Log level: error, warn, info, debug or trace (default: ${DEFAULT-VALUE}). Logs go to stderr.")
        String logLevel;

        @Override
        public Integer call() throws IOException, InterruptedException {
            Map<String, String> env = System.getenv();
            if (!Logging.isLevel(logLevel)) throw new ParameterException(spec.commandLine(), "--log-level must be one of error, warn, info, debug, trace");
            Mode m = Mode.fromId(mode).orElseThrow(() -> new ParameterException(spec.commandLine(), "--mode must be one of "
                    + String.join(", ", Arrays.stream(Mode.values()).map(Mode::id).toList()) + " (got '" + mode + "')"));
            if (idleClose < 0) throw new ParameterException(spec.commandLine(), "--idle-close must be 0 or more seconds");
            if (port < 0 || port > 65535) throw new ParameterException(spec.commandLine(), "--port must be between 0 and 65535");
            Path dir = (cwd != null ? cwd : Path.of("")).toAbsolutePath().normalize();
            if (!Files.isDirectory(dir)) throw new ParameterException(spec.commandLine(), "--cwd " + dir + " is not a directory");
            String token = null;
            if (tokenEnv != null) {
                token = env.get(tokenEnv);
                if (token == null || token.isBlank()) {
                    throw new ParameterException(spec.commandLine(), "--token-env " + tokenEnv + ": that environment variable is not set or empty");
                }
            }
            if (tokenEnv != null) CredentialNames.declare(tokenEnv); // kept from every child, whatever its name
            Logging.configure(logLevel, null);
            AgentConfig config = AgentConfig.load(env, store.commandLine(sessionsDir));
            Path configDir = config.configDir();
            SessionService sessions = CoreFactory.create(config);
            if (!sessions.configured(dir)) {
                spec.commandLine().getErr().println("agent a2a serve: no model provider is configured. " + sessions.authHelp());
                return 2;
            }
            try {
                sessions.list(null, null, 1); // a store that cannot be used stops the server before it listens
            } catch (CoreException e) {
                spec.commandLine().getErr().println("agent a2a serve: " + e.getMessage());
                sessions.close();
                return 1;
            }
            NetworkGuard guard = NetworkGuard.of(config.network());
            A2aServer server;
            try {
                server = A2aServer.start(new A2aServer.Options(host, port, dir, token, m, BuildVersion.current(), Duration.ofSeconds(idleClose),
                        allowedHosts, allowedOrigins), sessions, configDir,
                        guard, BuiltinTools.create(guard).all());
            } catch (IllegalArgumentException e) {
                spec.commandLine().getErr().println("agent a2a serve: " + e.getMessage());
                return 2;
            } catch (IOException e) {
                spec.commandLine().getErr().println("agent a2a serve: cannot listen on " + host + ":" + port + ": " + e.getMessage());
                return 2;
            }
            System.err.println("listening on " + server.baseUrl());
            CountDownLatch stopped = new CountDownLatch(1);
            Signals.onTerminate(() -> {
                server.shutdown(Duration.ofSeconds(3));
                sessions.close();
                stopped.countDown();
            });
            stopped.await();
            return 0;
        }
    }
}
