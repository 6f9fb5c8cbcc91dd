package cn.agentao.agent.cli;

import cn.agentao.agent.sandbox.Sandboxes;
import picocli.CommandLine;

/**
 * Process entry point. An editor starts us with plain ACP options; those are read by {@link AcpLaunch#parse}
 * without Picocli, whose old-bytecode classes cannot be kept in the AOT cache and cost about 120 ms at every
 * start; {@code --version} alone is answered here too (Picocli's set-up is most of its cost). Anything else
 * (help, subcommands, a typo) goes to Picocli, which owns usage and errors.
 */
public final class Main {
    private Main() {}

    private static CommandLine picocli(String[] args) {
        CommandLine cl = new CommandLine(new AgentCommand()).setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(Main::usageError);
        if (java.util.Arrays.asList(args).contains("--help") || java.util.Arrays.asList(args).contains("-h")) {
            java.util.List<String> footer = new java.util.ArrayList<>(java.util.List.of(""));
            footer.addAll(Sandboxes.of(cn.agentao.agent.config.SandboxSettings.fromEnvironment(System.getenv())).helpLines()); // a trial run of the sandbox: help only
            cl.getCommandSpec().usageMessage().footer(footer.toArray(String[]::new));
        }
        return cl;
    }

    /** A bad command line: what is wrong in one line, then the short usage and where the whole help is (not the help). */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        String name = cl.getCommandSpec().qualifiedName();
        java.io.PrintWriter err = cl.getErr();
        err.println(name + ": " + e.getMessage());
        err.println("Usage: " + cl.getHelp().abbreviatedSynopsis().strip());
        err.println("See '" + name + " --help'.");
        err.flush();
        return cl.getCommandSpec().exitCodeOnInvalidInput();
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--aot-training")) System.exit(AotTraining.run()); // build step only
        if (args.length == 1 && args[0].equals("--aot-training-chat")) System.exit(ChatTraining.run()); // build step only
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            for (String line : Version.lines()) System.out.println(line);
            System.exit(0);
        }
        AcpLaunch.Options fast = AcpLaunch.parse(args);
        TerminalLaunch.Options terminal = fast == null ? TerminalLaunch.parse(args) : null;
        if (terminal != null) System.exit(TerminalLaunch.run(terminal)); // the chat or -p, without Picocli's start-up cost
        if (fast == null) {
            // the command line speaks for itself (`sessions prune` prints what it did): logger lines only for
            // errors, unless AGENT_LOG_LEVEL asks for more (--acp configures its own logging)
            String level = System.getenv("AGENT_LOG_LEVEL");
            Logging.configure(Logging.isLevel(level) ? level : "error", null);
        }
        int code = fast != null ? AcpLaunch.run(fast) : picocli(args).execute(args);
        System.exit(code);
    }
}
