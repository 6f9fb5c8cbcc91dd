package cn.agentao.agent.config;

import cn.agentao.agent.util.UserHome;

import java.nio.file.Path;
import java.util.Map;

/**
 * The process's configuration, read once at start from its layers and handed to each part as a typed section:
 * the user's {@code config.json} (read once, {@link #userJson}), the environment, and the command line, a later
 * layer winning over an earlier one. A project's own files ({@code .env}, {@code .agent/mcp.json}) are a fourth
 * layer, per session and only when the user trusts the project: {@link #projectDir} says where they are, the trust
 * list decides whether they count. See {@code docs/configuration.md} for every section, key and variable.
 *
 * @param environment the process's environment with nothing of the command line in it; kept for what must filter or
 *                    look up variables by a name the user chose (the children's environment, providers' keys, tokens)
 * @param configDir   the user's configuration directory ({@code $XDG_CONFIG_HOME/agent} or {@code ~/.config/agent})
 * @param userJson    the user's {@code config.json}, parsed once
 */
public record AgentConfig(Map<String, String> environment, Path configDir, ConfigJson userJson,
                          Limits limits, Network network, SandboxSettings sandbox, StoreSettings store) {
    /** Model calls one prompt may make before it ends with max_turn_requests, unless {@value Limits#MAX_MODEL_CALLS_ENV} says. */
    public static final int DEFAULT_MAX_MODEL_CALLS = 50;

    public AgentConfig {
        environment = Map.copyOf(environment);
    }

    /** What the command line says, winning over the environment; null where it says nothing. */
    public record CommandLine(Path sessionsDir, String store, String storePasswordEnv) {
        public static final CommandLine NONE = new CommandLine(null, null, null);
    }

    /** The limits of a prompt's work. */
    public record Limits(int maxModelCalls) {
        public static final String MAX_MODEL_CALLS_ENV = "AGENT_MAX_MODEL_CALLS";

        public static Limits from(Map<String, String> env) {
            return new Limits(positive(env.get(MAX_MODEL_CALLS_ENV), DEFAULT_MAX_MODEL_CALLS));
        }

        private static int positive(String v, int fallback) {
            try {
                return v == null ? fallback : Math.max(1, Integer.parseInt(v.strip()));
            } catch (NumberFormatException e) {
                return fallback;
            }
        }
    }

    /**
     * Whether web_fetch, remote agents and push webhooks may reach loopback and private addresses, the proxies outgoing
     * HTTP takes and the certificate authorities TLS trusts besides the JDK's. Read from the agent's own process
     * environment only, never from a project's {@code .env}.
     */
    public record Network(boolean allowPrivateNetwork, Proxies proxies, Certificates certificates) {
        /** Set to 1 (or true) to let them (off by default). */
        public static final String ALLOW_PRIVATE_NETWORK_ENV = "AGENT_ALLOW_PRIVATE_NETWORK";

        public static Network from(Map<String, String> env) {
            String allow = env.get(ALLOW_PRIVATE_NETWORK_ENV);
            return new Network("1".equals(allow) || "true".equalsIgnoreCase(allow), Proxies.from(env), Certificates.from(env));
        }

        /** This process's network settings, for what is set up once per process (its HTTP clients). */
        public static Network ofThisProcess() {
            return from(System.getenv());
        }
    }

    /** A variable set to a non-blank value: its name, which messages cite, and its value (never in {@link #toString()}). */
    public record Variable(String name, String value) {
        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * The proxy variables editors pass to agents, the first of each group that is set (the lower-case spelling first,
     * as curl reads them): for https URLs, for http URLs ({@code all_proxy}/{@code ALL_PROXY} for either when its own
     * is unset), and the hosts that go direct. Null where none is set.
     */
    public record Proxies(Variable https, Variable http, Variable noProxy) {
        public static Proxies from(Map<String, String> env) {
            return new Proxies(first(env, "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"),
                    first(env, "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"), first(env, "no_proxy", "NO_PROXY"));
        }

        private static Variable first(Map<String, String> env, String... names) {
            for (String n : names) {
                String v = env.get(n);
                if (v != null && !v.isBlank()) return new Variable(n, v);
            }
            return null;
        }
    }

    /** {@code SSL_CERT_FILE} (a PEM file) and {@code SSL_CERT_DIR} (directories separated by {@code :}), as set; null where unset. */
    public record Certificates(String file, String dirs) {
        public static Certificates from(Map<String, String> env) {
            return new Certificates(env.get("SSL_CERT_FILE"), env.get("SSL_CERT_DIR"));
        }
    }

    /**
     * The terminal chat's settings: the terminal's type ({@code TERM}), whether {@code NO_COLOR} is set (any value but
     * empty, https://no-color.org), and where the input history is kept: {@code $XDG_STATE_HOME/agent/history}, else
     * {@code ~/.local/state/agent/history}. Read by the terminal's launch alone, before the rest is loaded.
     */
    public record Terminal(String type, boolean noColor, Path historyFile) {
        public static Terminal from(Map<String, String> env) {
            String noColor = env.get("NO_COLOR");
            String state = env.get("XDG_STATE_HOME");
            Path base = state != null && !state.isBlank() && Path.of(state).isAbsolute() ? Path.of(state)
                    : UserHome.from(env).resolve(".local").resolve("state");
            return new Terminal(env.get("TERM"), noColor != null && !noColor.isEmpty(), base.resolve("agent").resolve("history"));
        }
    }

    /** The process's configuration from its environment alone. */
    public static AgentConfig load(Map<String, String> environment) {
        return load(environment, CommandLine.NONE);
    }

    /** The process's configuration: the user's {@code config.json} once, then the environment, then the command line. */
    public static AgentConfig load(Map<String, String> environment, CommandLine commandLine) {
        Path configDir = userConfigDir(environment);
        ConfigJson userJson = ConfigJson.read(configDir.resolve(ConfigJson.USER_FILE));
        return new AgentConfig(environment, configDir, userJson, Limits.from(environment), Network.from(environment),
                SandboxSettings.from(environment, configDir, userJson), StoreSettings.from(environment, commandLine));
    }

    /** {@code $XDG_CONFIG_HOME/agent} when that is an absolute path, else {@code $HOME/.config/agent}. */
    public static Path userConfigDir(Map<String, String> environment) {
        String xdg = environment.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg.strip()).isAbsolute()) {
            return Path.of(xdg.strip(), "agent");
        }
        return UserHome.from(environment).resolve(".config").resolve("agent");
    }

    /** Where a project keeps its own configuration ({@code .agent/}), which counts only while the user trusts it. */
    public static Path projectDir(Path project) {
        return project.resolve(".agent");
    }

    @Override
    public String toString() { // never the environment's values
        return "AgentConfig[configDir=" + configDir + ", " + limits + ", " + network + ", " + sandbox + ", " + store + "]";
    }
}
