package cn.agentao.agent.cli;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.model.KeyCheck;
import cn.agentao.agent.model.ProviderLogin;
import cn.agentao.agent.model.UserDotEnvFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code agent login}: asks for the provider, the key (hidden) and, when needed, the endpoint and model; checks
 * them with one cheap call; saves them in the user's {@code .env} (0600). This is the ACP {@code terminal} auth
 * method: a client runs it in a terminal, exit status 0 meaning success.
 */
@Command(name = "login", mixinStandardHelpOptions = true,
        description = {"Choose a model provider and save its key, endpoint and model.",
                "They are saved in $XDG_CONFIG_HOME/agent/.env (or ~/.config/agent/.env), readable by you only; the key"
                        + " is asked without echo and checked first with one call that lists the provider's models."
                        + " Undo with: agent logout."})
public final class LoginCommand implements Callable<Integer> {
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(20);

    @Spec
    CommandSpec spec;

    private final AgentConfig config;

    public LoginCommand() {
        this(AgentConfig.load(System.getenv()));
    }

    LoginCommand(AgentConfig config) {
        this.config = config;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        TerminalInput in = TerminalInput.open(out);
        try {
            return login(in, out, err);
        } catch (TerminalInput.EndOfInput e) {
            err.println("agent login: input ended; nothing was saved.");
            return 1;
        }
    }

    /** The chat's first run with nothing configured: offers {@code agent login} there and then; true when it saved a provider. */
    static boolean offer(AgentConfig config) {
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, java.nio.charset.StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(System.err, java.nio.charset.StandardCharsets.UTF_8), true);
        TerminalInput in = TerminalInput.open(out);
        try {
            String answer = in.line("Set one up now with agent login? [Y/n]: ").strip();
            if (!answer.isEmpty() && !answer.toLowerCase(java.util.Locale.ROOT).startsWith("y")) return false;
            return new LoginCommand(config).login(in, out, err) == 0;
        } catch (TerminalInput.EndOfInput e) {
            return false;
        }
    }

    private int login(TerminalInput in, PrintWriter out, PrintWriter err) {
        List<ProviderLogin.Choice> choices = ProviderLogin.CHOICES;
        out.println("Which model provider?");
        for (int i = 0; i < choices.size(); i++) out.println("  " + (i + 1) + ") " + choices.get(i).label());
        ProviderLogin.Choice choice = null;
        while (choice == null) {
            String answer = in.line("Provider [1-" + choices.size() + "]: ").strip();
            try {
                int n = Integer.parseInt(answer);
                if (n >= 1 && n <= choices.size()) choice = choices.get(n - 1);
            } catch (NumberFormatException e) {
                choice = choices.stream().filter(c -> c.prefix() != null && c.prefix().equalsIgnoreCase(answer)).findFirst().orElse(null);
            }
            if (choice == null) out.println("Please answer a number from 1 to " + choices.size() + ".");
        }
        String prefix = choice.prefix();
        while (prefix == null) {
            prefix = ProviderLogin.prefixFor(in.line("A short name for it (e.g. vllm, becomes VLLM_API_KEY …): "));
            if (prefix == null) out.println("Use letters, digits and '-' or '_', starting with a letter.");
        }
        String key = null;
        if (choice.needsKey()) {
            while (key == null || key.isBlank()) key = in.secret("API key (not shown): ");
            key = key.strip();
        }
        String baseUrl = ask(in, out, "Base URL", choice.defaultBaseUrl());
        String checkedUrl = baseUrl != null ? baseUrl : choice.defaultBaseUrl();

        out.println("Checking with " + checkedUrl + " …");
        out.flush();
        KeyCheck.Result check = KeyCheck.check(choice.kind(), checkedUrl, key, CHECK_TIMEOUT);
        boolean confirmed = check.ok();
        if (check.ok()) {
            out.println("OK: " + check.message() + ".");
        } else if (check.refused()) {
            err.println("agent login: " + check.message() + "; nothing was saved.");
            return 1;
        } else {
            out.println("Could not confirm that it works: " + check.message() + ".");
        }
        String model = askModel(in, out, check.models(), choice.defaultModel());
        if (!confirmed) {
            String save = in.line("Save it anyway? [y/N]: ").strip();
            if (!save.equalsIgnoreCase("y") && !save.equalsIgnoreCase("yes")) {
                err.println("agent login: nothing was saved.");
                return 1;
            }
        }
        UserDotEnvFile file = UserDotEnvFile.in(config.configDir());
        try {
            file.update(ProviderLogin.variables(prefix, key, baseUrl, model), java.util.Set.of());
        } catch (IOException e) {
            err.println("agent login: cannot write " + file.file() + ": " + e.getMessage());
            return 1;
        }
        out.println("Saved in " + file.file() + " (readable by you only). New sessions use "
                + prefix.toLowerCase(java.util.Locale.ROOT) + "/" + (model != null ? model : choice.defaultModel()) + ".");
        for (String name : ProviderLogin.variables(prefix, key, baseUrl, model).keySet()) {
            String shadow = config.environment().get(name); // the provider's own variable, by name
            if (shadow != null && !shadow.isBlank()) {
                out.println("Note: " + name + " is also set in your environment, which wins over the file.");
            }
        }
        return 0;
    }

    /** Asks for an optional value with a default (Enter keeps it); without a default an answer is required, and said so. */
    private static String ask(TerminalInput in, PrintWriter out, String what, String fallback) {
        while (true) {
            String answer = in.line(what + (fallback == null ? " (required): " : " [" + fallback + "]: ")).strip();
            if (!answer.isEmpty()) return answer;
            if (fallback != null) return null;
            out.println(what + " is required: this provider has no default.");
        }
    }

    /** The model: one of those the provider listed (by number or name), or any name; Enter keeps the default. */
    private static String askModel(TerminalInput in, PrintWriter out, List<String> listed, String fallback) {
        List<String> shown = listed.size() > 30 ? listed.subList(0, 30) : listed;
        if (!shown.isEmpty()) {
            out.println("Models the provider lists" + (shown.size() < listed.size() ? " (the first " + shown.size() + " of "
                    + listed.size() + ")" : "") + "; answer a number or a name:");
            for (int i = 0; i < shown.size(); i++) out.println("  " + (i + 1) + ") " + shown.get(i));
        }
        String answer = ask(in, out, "Model", fallback);
        if (answer == null) return null;
        try {
            int n = Integer.parseInt(answer);
            if (n >= 1 && n <= shown.size()) return shown.get(n - 1);
        } catch (NumberFormatException e) {
            // a name
        }
        return answer;
    }
}
