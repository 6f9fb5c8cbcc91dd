package cn.agentao.agent.cli;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.model.ProviderLogin;
import cn.agentao.agent.model.UserDotEnvFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code agent logout}: removes what {@code agent login} saved (provider choice, keys, endpoints, models). */
@Command(name = "logout", mixinStandardHelpOptions = true,
        description = {"Remove the provider, keys, endpoints and models that agent login saved.",
                "They are removed from $XDG_CONFIG_HOME/agent/.env (or ~/.config/agent/.env); the file's other lines"
                        + " stay. Variables set in your environment are not touched."})
public final class LogoutCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    private final AgentConfig config;

    public LogoutCommand() {
        this(AgentConfig.load(System.getenv()));
    }

    LogoutCommand(AgentConfig config) {
        this.config = config;
    }

    @Override
    public Integer call() {
        UserDotEnvFile file = UserDotEnvFile.in(config.configDir());
        try {
            Set<String> removed = ProviderLogin.logout(file);
            spec.commandLine().getOut().println(removed.isEmpty() ? "Nothing to remove in " + file.file() + "."
                    : "Removed " + String.join(", ", removed) + " from " + file.file() + ".");
            return 0;
        } catch (IOException e) {
            spec.commandLine().getErr().println("agent logout: cannot write " + file.file() + ": " + e.getMessage());
            return 1;
        }
    }
}
