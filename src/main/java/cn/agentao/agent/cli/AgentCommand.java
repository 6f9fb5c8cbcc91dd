package cn.agentao.agent.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

@Command(name = "agent", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        subcommands = {SessionsCommand.class, TrustCommand.class, LoginCommand.class, LogoutCommand.class, AgoraCommand.class,
                SmcpCommand.class, A2aCommand.class, SkillsCommand.class, AgentsCommand.class},
        description = {
                "A coding agent: a chat in the terminal, one prompt headless, or an ACP server for editors.",
                "",
                "  agent                 the chat",
                "  agent \"QUESTION\"      the chat, asked QUESTION first",
                "  agent -p PROMPT       one prompt, headless (or the prompt on stdin)",
                "  agent --acp           ACP on stdin/stdout, for an editor",
                "",
                "Exit codes: 0 answer complete; 1 the model failed, or no provider;",
                "2 usage error; 130 interrupted.",
                "",
                "Add it to your editor as an external agent, e.g. in Zed's settings.json:",
                "  \"agent_servers\": { \"agent\": {",
                "      \"command\": \"/path/to/bin/agent\", \"args\": [\"--acp\"] } }",
                "",
                "Model provider (as Agentao): LLM_PROVIDER (default OPENAI) names a prefix; set",
                "{PREFIX}_API_KEY, and optionally {PREFIX}_MODEL, {PREFIX}_BASE_URL,",
                "LLM_TEMPERATURE, LLM_MAX_TOKENS, in the environment or a .env file in the",
                "project or in ~/.config/agent/. \"agent login\" asks for them and saves them there.",
                "",
                "AGENT_SANDBOX=auto (default) runs shell commands in an OS sandbox (bubblewrap",
                "on Linux, sandbox-exec on macOS); AGENT_SANDBOX=none runs them without one",
                "(every command that is not read-only is then asked about). Read only from the",
                "real environment, never from a .env file.",
                "",
                "The chat and agent -p: docs/terminal.md; every command: docs/cli.md."
        })
public final class AgentCommand implements Callable<Integer> {

    @Option(names = AcpLaunch.ACP, description = "Speak ACP (JSON-RPC 2.0, one message per line) on stdin/stdout.")
    boolean acp;

    @Option(names = AcpLaunch.STDIO, description = "Accepted for Agentao's launch line (agentao --acp --stdio): ACP always uses stdio.")
    boolean stdio;

    @Option(names = {"-p", "--print"}, paramLabel = "PROMPT",
            description = "Run one prompt headless and print the answer (stdin, when not a terminal, is appended).")
    String print;

    @Option(names = "--output-format", paramLabel = "FORMAT", defaultValue = "text",
            description = "With -p: text (the answer only, default), json (one object at the end) or stream-json (one session/update per line, then the result).")
    String outputFormat;

    @Option(names = "--mode", paramLabel = "MODE",
            description = "Permission mode: read-only, workspace-write (default), full-access or plan.")
    String mode;

    @Option(names = "--model", paramLabel = "PROVIDER/MODEL", description = "The model to use, e.g. openai/gpt-5.")
    String model;

    @Option(names = {"-c", "--continue"}, description = "Continue the latest conversation of this directory.")
    boolean continueLatest;

    @Option(names = {"-r", AcpLaunch.RESUME}, arity = "0..1", fallbackValue = "", paramLabel = "ID",
            description = "Reopen a saved conversation: ID (or a unique prefix of it), else the latest one of this directory. With --acp: the first session/new reopens it.")
    String resume;

    @Option(names = AcpLaunch.LOG_LEVEL, paramLabel = "LEVEL", defaultValue = "${env:AGENT_LOG_LEVEL:-info}",
            description = "Log level: error, warn, info, debug or trace (default: ${DEFAULT-VALUE}). Logs go to stderr.")
    String logLevel;

    @Option(names = AcpLaunch.LOG_FILE, paramLabel = "FILE", description = "Write logs to FILE (readable by you only) instead of stderr.")
    Path logFile;

    @Option(names = AcpLaunch.SESSIONS_DIR, paramLabel = "DIR",
            description = {"Where conversations are kept (default:", "$AGENT_SESSIONS_DIR, else",
                    "$XDG_DATA_HOME/agent/sessions, else", "~/.local/share/agent/sessions)."})
    Path sessionsDir;

    @Option(names = AcpLaunch.MAX_MESSAGE_BYTES, paramLabel = "BYTES", defaultValue = "104857600",
            description = "Largest ACP message accepted, in bytes, at least 1024 (default: ${DEFAULT-VALUE}); a larger one is answered with an error.")
    long maxMessageBytes;

    @Parameters(arity = "0..*", paramLabel = "QUESTION",
            description = "Open the chat asked this first (without a terminal on stdin: run it as -p would).")
    java.util.List<String> question;

    @Mixin
    StoreOptions store = new StoreOptions();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (!acp) return TerminalLaunch.run(TerminalLaunch.from(this));
        if (question != null && !question.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--acp takes no question (the editor sends the prompts): '"
                    + String.join(" ", question) + "'");
        }
        if (!Logging.isLevel(logLevel)) {
            throw new ParameterException(spec.commandLine(), "--log-level must be one of error, warn, info, debug, trace (got '" + logLevel + "')");
        }
        if (maxMessageBytes < 1024) {
            throw new ParameterException(spec.commandLine(), "--max-message-bytes must be at least 1024");
        }
        return AcpLaunch.run(new AcpLaunch.Options(resume, logLevel, logFile, sessionsDir, maxMessageBytes, store));
    }
}
