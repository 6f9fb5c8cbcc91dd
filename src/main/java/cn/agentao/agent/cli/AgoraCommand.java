package cn.agentao.agent.cli;

import cn.agentao.agent.childenv.CredentialNames;
import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.door.agora.AgoraDoor;
import cn.agentao.agent.door.agora.AgoraLink;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.util.BuildVersion;
import cn.agentao.agent.util.InertText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import cn.agentao.agent.config.AgentConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/**
 * {@code agent agora}: takes part in Agora spaces until stopped (see docs/agora.md). Status and problems go to
 * stderr; stdout stays empty.
 */
@Command(name = "agora", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Take part in Agora spaces until stopped, answering messages in them.",
                "Each space is a saved session; a message that mentions @ID (or, with --respond all, any message from"
                        + " others) is answered in the space."})
public final class AgoraCommand implements Callable<Integer> {
    private static final Pattern AGENT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

    @Spec
    CommandSpec spec;

    @Option(names = "--url", required = true, paramLabel = "URL", description = "The server's WebSocket endpoint, e.g. ws://host:port/ws (wss:// for TLS).")
    String url;

    @Option(names = "--agent-id", required = true, paramLabel = "ID", description = "This agent's id in the spaces; it answers @ID.")
    String agentId;

    @Option(names = "--token-env", paramLabel = "VAR", description = "The environment variable holding the server's token (never a command-line value).")
    String tokenEnv;

    @Option(names = "--space", required = true, paramLabel = "NAME", description = "A space to join; repeat for several.")
    List<String> spaces;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "read-only",
            description = "Permission mode of the spaces' sessions: read-only (default), plan, workspace-write, full-access. Nobody can approve a step in a space: what the mode does not allow is refused.")
    String mode;

    @Option(names = "--respond", paramLabel = "WHEN", defaultValue = "mention", description = "Which messages to answer: mention (default), those that mention @ID; all, every message from others.")
    String respond;

    @Option(names = "--heartbeat-seconds", paramLabel = "N", defaultValue = "30", description = "Seconds between heartbeats (default: ${DEFAULT-VALUE}).")
    double heartbeatSeconds;

    @Option(names = "--max-depth", paramLabel = "N", defaultValue = "4", description = "Answer no message that is N or more agent answers deep in a thread (default: ${DEFAULT-VALUE}).")
    int maxDepth;

    @Option(names = "--max-per-minute", paramLabel = "N", defaultValue = "10", description = "Answers at most N messages per space in any minute (default: ${DEFAULT-VALUE}).")
    int perMinute;

    @Option(names = "--sessions-dir", paramLabel = "DIR", description = "Where the spaces' conversations are kept (as for --acp).")
    Path sessionsDir;

    @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "${env:AGENT_LOG_LEVEL:-warn}", description = "Log level (default: ${DEFAULT-VALUE}); logs go to stderr.")
    String logLevel;

    @Mixin
    StoreOptions store = new StoreOptions();

    private final Map<String, String> env;

    public AgoraCommand() { this(System.getenv()); }

    AgoraCommand(Map<String, String> env) { this.env = env; }

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        AgoraDoor.Options options = options();
        if (tokenEnv != null) CredentialNames.declare(tokenEnv); // kept from every child, whatever its name
        Logging.configure(logLevel, null);
        SessionService sessions = CoreFactory.create(AgentConfig.load(env, store.commandLine(sessionsDir)));
        if (!sessions.configured(options.cwd())) {
            err.println("agent agora: no model provider is configured. " + sessions.authHelp());
            err.flush();
            return 2;
        }
        try {
            sessions.list(null, null, 1); // a store that cannot be used stops the door before it connects
        } catch (CoreException e) {
            err.println("agent agora: " + e.getMessage());
            err.flush();
            sessions.close();
            return 1;
        }
        AgoraDoor door = new AgoraDoor(sessions, options, line -> { err.println(InertText.forTerminal(line)); err.flush(); });
        Signals.onTerminate(() -> {
            door.close();
            err.flush();
            Runtime.getRuntime().halt(0);
        });
        try {
            door.start();
        } catch (CoreException e) {
            err.println("agent agora: " + e.getMessage());
            err.flush();
            door.close();
            return 1;
        }
        int code = door.awaitStopped();
        door.close();
        err.flush();
        return code;
    }

    private AgoraDoor.Options options() {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new ParameterException(spec.commandLine(), "--url is not a URL: " + url);
        }
        if (!"ws".equalsIgnoreCase(uri.getScheme()) && !"wss".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
            throw new ParameterException(spec.commandLine(), "--url must be ws://HOST[:PORT]/PATH or wss://… (got '" + url + "')");
        }
        if (!AGENT_ID.matcher(agentId).matches()) {
            throw new ParameterException(spec.commandLine(), "--agent-id must be letters, digits, '.', '_' or '-' (at most 128), starting with a letter or digit");
        }
        String token = null;
        if (tokenEnv != null) {
            token = env.get(tokenEnv);
            if (token == null || token.isBlank()) throw new ParameterException(spec.commandLine(), "--token-env " + tokenEnv + ": that variable is not set");
        }
        for (String s : spaces) {
            if (s.isBlank() || s.length() > 200 || s.chars().anyMatch(Character::isISOControl)) {
                throw new ParameterException(spec.commandLine(), "--space must be a space name (got '" + s + "')");
            }
        }
        Mode m = Mode.fromId(mode).orElseThrow(() -> new ParameterException(spec.commandLine(), "--mode must be one of "
                + String.join(", ", Arrays.stream(Mode.values()).map(Mode::id).toList()) + " (got '" + mode + "')"));
        if (!respond.equals("mention") && !respond.equals("all")) {
            throw new ParameterException(spec.commandLine(), "--respond must be mention or all (got '" + respond + "')");
        }
        if (!(heartbeatSeconds > 0) || heartbeatSeconds > 3600) {
            throw new ParameterException(spec.commandLine(), "--heartbeat-seconds must be more than 0 and at most 3600");
        }
        if (maxDepth < 1) throw new ParameterException(spec.commandLine(), "--max-depth must be at least 1");
        if (perMinute < 1) throw new ParameterException(spec.commandLine(), "--max-per-minute must be at least 1");
        if (!Logging.isLevel(logLevel)) throw new ParameterException(spec.commandLine(), "--log-level must be one of error, warn, info, debug, trace");
        AgoraLink.Settings link = new AgoraLink.Settings(uri, agentId, token, spaces.stream().distinct().toList(),
                Duration.ofMillis((long) (heartbeatSeconds * 1000)), BuildVersion.current(), Duration.ofMillis(500), Duration.ofSeconds(30));
        return new AgoraDoor.Options(link, m, respond.equals("all"), Path.of("").toAbsolutePath(), maxDepth, perMinute);
    }
}
