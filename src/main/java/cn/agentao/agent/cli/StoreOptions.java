package cn.agentao.agent.cli;

import cn.agentao.agent.config.AgentConfig;
import picocli.CommandLine.Option;

/**
 * {@code --store ADDRESS} and {@code --store-password-env VAR}: the one definition of the options that choose the
 * session store, mixed into every command that reads sessions ({@code agent}, {@code --acp}, {@code sessions},
 * {@code a2a serve}, {@code agora}) and read by the fast parsers too ({@link #accept}). They win over
 * {@code AGENT_STORE} and {@code AGENT_STORE_PASSWORD_ENV}: {@link #commandLine} is the configuration's command-line
 * layer ({@link AgentConfig.CommandLine}), which the core is built from ({@link SessionRepositories#open}).
 */
public final class StoreOptions {
    public static final String STORE = "--store";
    public static final String PASSWORD_ENV = "--store-password-env";

    @Option(names = STORE, paramLabel = "ADDRESS",
            description = {"Keep sessions in PostgreSQL at postgres://USER@HOST:PORT/DB (default: $AGENT_STORE; unset: in files).",
                    "The password comes from PGPASSWORD or --store-password-env."})
    String store;

    @Option(names = PASSWORD_ENV, paramLabel = "VAR",
            description = "The environment variable holding the store's password (default: $AGENT_STORE_PASSWORD_ENV, else PGPASSWORD).")
    String passwordEnv;

    /** For the fast parsers: takes {@code name value} if it is one of these options; false if it is not. */
    boolean accept(String name, String value) {
        switch (name) {
            case STORE -> store = value;
            case PASSWORD_ENV -> passwordEnv = value;
            default -> { return false; }
        }
        return true;
    }

    static boolean isOption(String name) {
        return name.equals(STORE) || name.equals(PASSWORD_ENV);
    }

    /** The command line's layer of the configuration: these options, and {@code sessionsDir} (nullable). */
    AgentConfig.CommandLine commandLine(java.nio.file.Path sessionsDir) {
        return new AgentConfig.CommandLine(sessionsDir, store, passwordEnv);
    }
}
