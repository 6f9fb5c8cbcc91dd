package cn.agentao.agent.cli;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.door.terminal.ExitCodes;
import cn.agentao.agent.door.terminal.Headless;
import cn.agentao.agent.door.terminal.OutputFormat;
import cn.agentao.agent.door.terminal.Terminals;
import cn.agentao.agent.permission.Mode;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/** Starts the agent for a person: headless with {@code -p} or a prompt on stdin, else the interactive chat. */
final class TerminalLaunch {
    private TerminalLaunch() {}

    /** The options of the terminal modes; {@code logLevel} null when not given (then loggers stay quiet). */
    record Options(String print, OutputFormat format, String mode, String model, boolean continueLatest, String resume,
                   Path sessionsDir, String logLevel, Path logFile, StoreOptions store, String question) {}

    /**
     * Reads the common terminal command lines ({@code agent}, {@code agent -p PROMPT --output-format json}, …)
     * without Picocli, whose set-up costs more than the rest of the start; returns null for anything else
     * (help, a typo, a bad value, a word that is a subcommand or a question), which then goes to Picocli.
     */
    static Options parse(String[] args) {
        String print = null, mode = null, model = null, resume = null, level = null;
        OutputFormat format = OutputFormat.TEXT;
        boolean cont = false;
        Path sessions = null, logFile = null;
        StoreOptions store = new StoreOptions();
        try {
            ArgCursor arg = new ArgCursor(args);
            while (arg.next()) {
                String name = arg.name();
                switch (name) {
                    case "-c", "--continue" -> { if (arg.hasInlineValue()) return null; cont = true; }
                    case "-r", AcpLaunch.RESUME -> {
                        resume = arg.optionalValue();
                    }
                    case "-p", "--print", "--output-format", "--mode", "--model", AcpLaunch.SESSIONS_DIR,
                         AcpLaunch.LOG_LEVEL, AcpLaunch.LOG_FILE -> {
                        String v = arg.value();
                        if (v == null) return null;
                        switch (name) {
                            case "-p", "--print" -> print = v;
                            case "--output-format" -> format = OutputFormat.parse(v);
                            case "--mode" -> { if (Mode.fromId(v).isEmpty()) return null; mode = v; }
                            case "--model" -> model = v;
                            case AcpLaunch.SESSIONS_DIR -> sessions = Path.of(v);
                            case AcpLaunch.LOG_LEVEL -> { if (!Logging.isLevel(v)) return null; level = v; }
                            default -> logFile = Path.of(v);
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
        } catch (IllegalArgumentException e) { // a bad format or path: Picocli says so
            return null;
        }
        if (cont && resume != null) return null;
        if (level == null) {
            String env = System.getenv("AGENT_LOG_LEVEL");
            if (env != null && Logging.isLevel(env)) level = env;
        }
        return new Options(print, format, mode, model, cont, resume, sessions, level, logFile, store, null);
    }

    /** Picocli's parse of the same options, checked the same way (a problem is Picocli's usage error, exit 2). */
    static Options from(AgentCommand c) {
        OutputFormat format;
        try {
            format = OutputFormat.parse(c.outputFormat);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(c.spec.commandLine(), e.getMessage());
        }
        if (c.mode != null && Mode.fromId(c.mode).isEmpty()) {
            throw new ParameterException(c.spec.commandLine(), "--mode must be one of "
                    + String.join(", ", Arrays.stream(Mode.values()).map(Mode::id).toList()) + " (got '" + c.mode + "')");
        }
        if (c.continueLatest && c.resume != null) {
            throw new ParameterException(c.spec.commandLine(), "--continue and --resume cannot be combined");
        }
        String question = c.question == null || c.question.isEmpty() ? null : String.join(" ", c.question);
        if (question != null && c.print != null) {
            throw new ParameterException(c.spec.commandLine(), "give the prompt once: with -p or as the question, not both ('"
                    + question + "')");
        }
        boolean explicitLevel = c.spec.commandLine().getParseResult().hasMatchedOption(AcpLaunch.LOG_LEVEL)
                || System.getenv("AGENT_LOG_LEVEL") != null;
        if (explicitLevel && !Logging.isLevel(c.logLevel)) {
            throw new ParameterException(c.spec.commandLine(), "--log-level must be one of error, warn, info, debug, trace (got '" + c.logLevel + "')");
        }
        return new Options(c.print, format, c.mode, c.model, c.continueLatest, c.resume, c.sessionsDir,
                explicitLevel ? c.logLevel : null, c.logFile, c.store, question);
    }

    static int run(Options c) {
        // nothing but the interface on the screen: loggers speak only when asked to (or into --log-file)
        Logging.configure(c.logLevel() != null ? c.logLevel() : (c.logFile() != null ? "info" : "off"), c.logFile());
        String resume = c.continueLatest() ? "" : c.resume();
        Path cwd = Path.of("").toAbsolutePath();
        Map<String, String> env = System.getenv();
        java.util.function.Supplier<SessionService> core = // read at each start: after agent login, with what it saved
                () -> CoreFactory.create(AgentConfig.load(env, c.store().commandLine(c.sessionsDir())));
        boolean stdinTerminal = Terminals.stdinIsTerminal();
        if (c.print() == null && stdinTerminal) {
            if (!Terminals.interactive()) {
                System.err.println("agent: stdout is not a terminal: give a prompt with -p PROMPT "
                        + "(or on stdin), or serve editors with --acp (see --help).");
                return ExitCodes.USAGE;
            }
            var request = new cn.agentao.agent.door.terminal.Chat.Request(cwd, resume, c.mode(), c.model(), AgentConfig.Terminal.from(env), c.question());
            int code = cn.agentao.agent.door.terminal.Chat.run(core, request);
            if (code != cn.agentao.agent.door.terminal.Chat.NO_PROVIDER) return code;
            // the first run with nothing configured: agent login there and then, then the chat with what it saved
            if (!LoginCommand.offer(AgentConfig.load(env))) return ExitCodes.FAILED;
            code = cn.agentao.agent.door.terminal.Chat.run(core, request);
            return code == cn.agentao.agent.door.terminal.Chat.NO_PROVIDER ? ExitCodes.FAILED : code;
        }
        String prompt = c.print() != null ? c.print() : c.question() != null ? c.question() : "";
        if (!stdinTerminal) {
            try {
                String piped = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
                if (!piped.isBlank()) prompt = prompt.isEmpty() ? piped : prompt + "\n\n" + piped;
            } catch (IOException e) {
                // unreadable stdin: the -p prompt alone
            }
        }
        if (prompt.isBlank()) {
            System.err.println("agent: no prompt: give one with -p PROMPT or on stdin, "
                    + "or start the chat in a terminal, or serve editors with --acp (see --help).");
            return ExitCodes.USAGE;
        }
        // only the answer on stdout: anything else printed by a library goes to stderr
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Headless.Request request = new Headless.Request(prompt, c.format(), c.mode(), c.model(), resume, cwd);
        return Headless.run(core.get(), request, out, System.err,
                TerminalLaunch::onInterrupt);
    }

    /**
     * SIGINT and SIGTERM cancel the turn (exit 130 follows); a second one ends the process at once. Also when they
     * were ignored at start (a script's background job): a run with no one at the keyboard must still stop when told.
     */
    @SuppressWarnings("restriction")
    static void onInterrupt(Runnable cancel) {
        java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
        for (String name : new String[]{"INT", "TERM"}) {
            try {
                Signals.handleEvenIfIgnored(name, s -> {
                    if (once.compareAndSet(false, true)) cancel.run();
                    else Runtime.getRuntime().halt(ExitCodes.INTERRUPTED);
                });
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // not available here: the JVM's default handling applies
            }
        }
    }
}
