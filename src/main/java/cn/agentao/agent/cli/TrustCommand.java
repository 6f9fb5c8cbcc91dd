package cn.agentao.agent.cli;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.connect.mcp.ProjectMcpFile;
import cn.agentao.agent.trust.TrustedProjects;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code agent trust [DIR]}: trusts a project from the command line, as answering "Trust" in the editor does:
 * its {@code .env} may choose providers and endpoints, and its current {@code .agent/mcp.json} (shown first)
 * starts without a question until it changes. {@code --revoke} makes it untrusted again.
 */
@Command(name = "trust", mixinStandardHelpOptions = true,
        description = {"Trust a project (default: the current directory), so that its .env may choose model providers.",
                "A trusted project's .env may also choose endpoints, and its .agent/mcp.json, as it is now, starts without"
                        + " asking. Kept in $XDG_CONFIG_HOME/agent/trusted-projects.json (or ~/.config/agent/)."})
public final class TrustCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "The project directory.")
    Path dir;

    @Option(names = "--revoke", description = "Make the project untrusted again.")
    boolean revoke;

    private final AgentConfig config;

    public TrustCommand() {
        this(AgentConfig.load(System.getenv()));
    }

    public TrustCommand(AgentConfig config) {
        this.config = config;
    }

    @Override
    public Integer call() {
        var out = spec.commandLine().getOut();
        var err = spec.commandLine().getErr();
        Path project = ProjectDirectory.resolve(dir, err, "agent trust");
        if (project == null) return 1;
        TrustedProjects trust = TrustedProjects.in(config.configDir());
        try {
            if (revoke) {
                out.println(trust.forget(project) ? project + " is no longer trusted." : project + " was not trusted.");
                return 0;
            }
            ProjectMcpFile mcp = ProjectMcpFile.read(project).orElse(null);
            List<String> servers = mcp == null ? List.of() : mcp.describe();
            trust.record(project, true, mcp);
            out.println("Trusted " + project + " (in " + trust.file() + ").");
            if (!servers.isEmpty()) {
                out.println("Its MCP servers now start with each session:");
                servers.forEach(s -> out.println("  " + s));
                if (!mcp.startFiles().isEmpty()) {
                    out.println("They start from these files of the project (a change to one is asked about again):");
                    mcp.startFiles().keySet().stream().sorted().forEach(f -> out.println("  " + f));
                }
            }
            return 0;
        } catch (IOException e) {
            err.println("agent trust: cannot write " + trust.file() + ": " + e.getMessage());
            return 1;
        }
    }
}
