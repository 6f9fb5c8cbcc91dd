package cn.agentao.agent.cli;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.skills.Skill;
import cn.agentao.agent.skills.SkillCatalog;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.InertText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code agent skills list}: the skills a session in a project would have, as the model sees them, and what was skipped. */
@Command(name = "skills", mixinStandardHelpOptions = true,
        description = {"Look at the skills sessions get.",
                "Skills are folders with a SKILL.md in the project's .agent/skills, .agentao/skills or .claude/skills"
                        + " (trusted projects only) and in ~/.config/agent/skills."},
        subcommands = {SkillsCommand.ListSkills.class})
public final class SkillsCommand {

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"List the skills of a project (default: the current directory): name, description, where it is.",
                    "Skills that were skipped (a broken SKILL.md, an untrusted project) are explained on stderr."})
    public static final class ListSkills implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = {"-C", "--dir"}, paramLabel = "DIR", description = "The project directory.")
        Path dir;

        private final AgentConfig config;

        public ListSkills() {
            this(AgentConfig.load(System.getenv()));
        }

        public ListSkills(AgentConfig config) {
            this.config = config;
        }

        @Override
        public Integer call() {
            var out = spec.commandLine().getOut();
            var err = spec.commandLine().getErr();
            Path project = ProjectDirectory.resolve(dir, err, "agent skills list");
        if (project == null) return 1;
            SkillCatalog skills = SkillCatalog.discover(project, config.configDir(),
                    TrustedProjects.in(config.configDir()).trusted(project));
            for (String notice : skills.notices()) err.println(InertText.forTerminal(notice));
            if (skills.isEmpty()) {
                out.println("No skills.");
                return 0;
            }
            for (Skill s : skills.all()) {
                out.println(InertText.forTerminal(s.name()) + "  (" + (s.project() ? "project" : "user") + ", " + InertText.forTerminal(s.dir().toString()) + ")");
                out.println("    " + InertText.forTerminal(s.description().replaceAll("\\s+", " ")));
                if (!s.allowedTools().isEmpty()) out.println("    allowed-tools: " + InertText.forTerminal(String.join(", ", s.allowedTools())));
            }
            return 0;
        }
    }
}
