package cn.agentao.agent.cli;

import cn.agentao.agent.connect.smcp.SmcpConfig;
import cn.agentao.agent.connect.smcp.SmcpOffice;
import cn.agentao.agent.connect.smcp.SmcpStatusText;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.util.InertText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code agent smcp status}: joins the A2C-SMCP office of the user's config.json as the agent would, and shows
 * the office, its Computers and their tools (or why it cannot join), then leaves. Exit code 0 when joined.
 */
@Command(name = "smcp", mixinStandardHelpOptions = true,
        description = {"Look at the A2C-SMCP office that config.json names.",
                "The office is set by config.json's \"smcp\" (url, office, name, tokenEnv)."},
        subcommands = {SmcpCommand.Status.class})
public final class SmcpCommand {

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = {"Join the office, show its Computers and their tools (the names the model sees), and leave.",
                    "While an agent of yours is in the office, the office is full: this says so."})
    public static final class Status implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "15", description = "How long to try (default: ${DEFAULT-VALUE}).")
        int waitSeconds;

        private final Map<String, String> env;

        public Status() {
            this(System.getenv());
        }

        public Status(Map<String, String> env) {
            this.env = env;
        }

        @Override
        public Integer call() {
            var out = spec.commandLine().getOut();
            var err = spec.commandLine().getErr();
            var configJson = ConfigLocations.standard(null, env).userConfigJson();
            SmcpConfig.Result config = SmcpConfig.read(configJson, env);
            config.problems().forEach(p -> err.println("agent smcp: " + p));
            if (config.config().isEmpty()) {
                if (config.problems().isEmpty()) err.println("agent smcp: " + configJson + " names no office (\"smcp\": {\"url\", \"office\", ...}).");
                return 1;
            }
            try (SmcpOffice office = new SmcpOffice(config.config().get())) {
                office.start();
                boolean joined = office.awaitSettled(Duration.ofSeconds(Math.max(1, waitSeconds)));
                out.print(InertText.forTerminal(SmcpStatusText.render(office.status()))); // names come from peers
                out.flush();
                return joined ? 0 : 1;
            }
        }
    }
}
