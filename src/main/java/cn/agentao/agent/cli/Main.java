package cn.agentao.agent.cli;

import picocli.CommandLine;

/** Process entry point. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        int code = new CommandLine(new AgentCommand())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .execute(args);
        System.exit(code);
    }
}
