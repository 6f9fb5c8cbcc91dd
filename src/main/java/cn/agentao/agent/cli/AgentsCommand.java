package cn.agentao.agent.cli;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.subagents.AgentCatalog;
import cn.agentao.agent.subagents.AgentDefinition;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.InertText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code agent agents list}: the subagents a session in a project could start with {@code task}, and what was skipped. */
@Command(name = "agents", mixinStandardHelpOptions = true,
        description = {"Look at the subagents sessions can start.",
                "Agents are Markdown files in the project's .agent/agents or .agentao/agents (trusted projects only)"
                        + " and in ~/.config/agent/agents, beside the built-ins general-purpose and codebase-investigator."},
        subcommands = {AgentsCommand.ListAgents.class})
public final class AgentsCommand {

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"List the agents of a project (default: the current directory): name, description, tools, where it is.",
                    "Definitions that were skipped (a broken file, an untrusted project) are explained on stderr."})
    public static final class ListAgents implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = {"-C", "--dir"}, paramLabel = "DIR", description = "The project directory.")
        Path dir;

        private final AgentConfig config;

        public ListAgents() {
            this(AgentConfig.load(System.getenv()));
        }

        public ListAgents(AgentConfig config) {
            this.config = config;
        }

        @Override
        public Integer call() {
            var out = spec.commandLine().getOut();
            var err = spec.commandLine().getErr();
            Path project = ProjectDirectory.resolve(dir, err, "agent agents list");
        if (project == null) return 1;
            AgentCatalog agents = AgentCatalog.discover(project, config.configDir(),
                    TrustedProjects.in(config.configDir()).trusted(project));
            for (String notice : agents.notices()) err.println(InertText.forTerminal(notice));
            for (AgentDefinition a : agents.all()) {
                out.println(InertText.forTerminal(a.name()) + "  (" + InertText.forTerminal(a.origin()) + (a.readOnly() ? ", read-only" : "") + ")");
                out.println("    " + InertText.forTerminal(a.description()));
                out.println("    tools: " + (a.tools().isEmpty() ? "all but task" : InertText.forTerminal(String.join(", ", a.tools())))
                        + "; max_turns: " + a.maxTurns() + (a.model() == null ? "" : "; model: " + InertText.forTerminal(a.model())));
            }
            return 0;
        }
    }
}
