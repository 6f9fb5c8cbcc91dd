package cn.agentao.agent.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The usage texts as a terminal shows them (80 columns): no path or setting is broken across lines. */
class HelpTest {
    private static final List<String> WHOLE = List.of("~/.config/agent/", "~/.local/share/agent/sessions",
            "$XDG_DATA_HOME/agent/sessions", "$AGENT_SESSIONS_DIR", "\"command\": \"/path/to/bin/agent\"", "{PREFIX}_BASE_URL");

    @Test
    void helpNeverWrapsAPathMidName() {
        CommandLine agent = new CommandLine(new AgentCommand());
        String help = agent.getUsageMessage() + agent.getSubcommands().get("sessions").getUsageMessage();
        for (String s : WHOLE) assertTrue(help.contains(s), "'" + s + "' is whole in:\n" + help);
        for (String line : help.split("\n")) assertTrue(line.length() <= 80, "fits 80 columns: " + line);
    }

    @Test
    void sessionsHelpNamesTheStoreDirectoryWhole() {
        String help = new CommandLine(new SessionsCommand(Map.of())).getUsageMessage();
        assertTrue(help.contains("~/.local/share/agent/sessions") && help.contains("$XDG_DATA_HOME/agent/sessions"), help);
    }
}
