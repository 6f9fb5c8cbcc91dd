package cn.agentao.agent.door.terminal;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.Setting;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.content.TurnResult;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.InertText;
import org.jline.keymap.KeyMap;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.Reference;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * {@code agent} in a terminal: a chat with the engine through JLine. Enter sends, Alt-Enter (or a backslash then Enter) starts a
 * new line, pasted text stays one message; history across runs (Up/Down, Ctrl-R) in the XDG state directory;
 * {@code /} commands and {@code @file} mentions complete with Tab; {@code !command} runs a command under the
 * session's permission and sandbox rules. Ctrl-C cancels a turn; on an empty prompt twice, or Ctrl-D, it exits.
 */
public final class Chat implements LocalSession.View, TurnPrinter.Screen {
    /** What the command line asked for; {@code question}, when not null, is sent as the first prompt. */
    public record Request(Path cwd, String resume, String mode, String model, AgentConfig.Terminal terminal, String question) {
        public Request(Path cwd, String resume, String mode, String model, AgentConfig.Terminal terminal) {
            this(cwd, resume, mode, model, terminal, null);
        }
    }

    /**
     * What {@link #run} returns, instead of an exit code, when no model provider is configured (after saying so): the
     * caller may offer {@code agent login} there and then, and run the chat again.
     */
    public static final int NO_PROVIDER = -1;

    /** Commands the chat answers itself (the engine answers /help, /model, /mode, /compact and prompt commands). */
    static final List<String> LOCAL_COMMANDS = List.of("sessions", "resume", "new", "exit", "quit");

    private final SessionService sessions;
    private final Request request;
    private final Terminal terminal;
    private final Ansi ansi;
    private final TurnPrinter printer;
    private final KeyQuestion keys;
    private final List<String> commands = new CopyOnWriteArrayList<>(List.of("help", "model", "mode", "compact"));
    private LineReader reader;
    private volatile LocalSession session;
    private volatile CompletableFuture<Void> opening;
    private volatile boolean reading;
    private volatile String mode = "workspace-write";
    private volatile String model = "";
    private volatile List<Setting.Choice> models = List.of();
    private volatile long used, size;

    /** The first prompt drawn before JLine was ready (see {@link #run(Supplier, Request)}): only the line is drawn again. */
    private final boolean drawnEarly;

    private Chat(SessionService sessions, Request request, Terminal terminal, boolean drawnEarly) {
        this.drawnEarly = drawnEarly;
        this.sessions = sessions;
        this.request = request;
        this.terminal = terminal;
        this.ansi = Ansi.forTerminal(request.terminal(), terminal.getType(), true);
        this.printer = new TurnPrinter(this, ansi);
        this.keys = new KeyQuestion(terminal, ansi, this::write);
    }

    /**
     * Runs the chat until the person leaves; returns the exit code. The first prompt of a new conversation is drawn on
     * stdout at once, before JLine's terminal is ready (opening it costs most of the start-up): what the person types
     * meanwhile waits, unechoed and unedited ({@link TtyMode}), until JLine reads it and draws the prompt line again. The
     * engine is built while the terminal opens, and the session is opened while the first prompt is typed.
     */
    public static int run(Supplier<SessionService> engine, Request request) {
        String type = request.terminal().type();
        // not for a resumed conversation (shown before its prompt) nor a dumb terminal (whose line editing is the kernel's)
        boolean early = request.resume() == null && request.question() == null && type != null && !type.isEmpty() && !type.startsWith("dumb");
        TtyMode keys = early ? TtyMode.rawKeys() : null; // first: a key typed once the prompt shows is kept as typed
        if (early) {
            Ansi ansi = Ansi.forTerminal(request.terminal(), type, true);
            System.out.print(hint(ansi) + "\n" + status(ansi, "", request.mode() == null ? "workspace-write" : request.mode(), 0, 0)
                    + "\n" + prompt(ansi));
            System.out.flush();
        }
        try {
            return run(engine, request, () -> {
                Terminal terminal = SystemTerminal.open(type);
                if (keys != null && terminal.getType().startsWith("dumb")) keys.restore(); // JLine fell back to a dumb one
                return terminal;
            }, early);
        } finally {
            if (keys != null) keys.restore();
        }
    }

    private static String hint(Ansi a) {
        return a.dim("Enter sends · Alt-Enter or \\ Enter: new line · /help · Ctrl-C cancels · Ctrl-D exits");
    }

    private static String prompt(Ansi a) { return a.bold(a.green("› ")); }

    /** A terminal for the chat: the process's own, or (for the AOT cache's training run) a pseudo-terminal. */
    public interface Opener {
        Terminal open() throws IOException;
    }

    /** The chat on the terminal {@code opener} gives; {@code drawnEarly}: its first prompt is on the screen already. */
    public static int run(Supplier<SessionService> engine, Request request, Opener opener, boolean drawnEarly) {
        CompletableFuture<SessionService> building = CompletableFuture.supplyAsync(engine, r -> Thread.ofPlatform().daemon().start(r));
        Terminal terminal;
        try {
            terminal = opener.open();
        } catch (IOException e) {
            System.err.println("agent: cannot open the terminal: " + e.getMessage());
            return ExitCodes.FAILED;
        }
        try (terminal) {
            SessionService sessions = building.join();
            if (!sessions.configured(request.cwd())) {
                terminal.writer().println((drawnEarly ? "\r" : "") + "agent: " + Headless.noProvider(sessions, request.cwd()));
                terminal.writer().flush();
                return NO_PROVIDER;
            }
            return new Chat(sessions, request, terminal, drawnEarly).loop();
        } catch (IOException | java.io.IOError e) {
            System.err.println("agent: " + e.getMessage());
            return ExitCodes.FAILED;
        }
    }

    private int loop() {
        reader = lineReader(terminal, request.terminal().historyFile(), new ChatCompleter(request.cwd(), () -> {
            List<String> all = new ArrayList<>(commands);
            all.addAll(LOCAL_COMMANDS);
            return all;
        }));
        terminal.handle(Terminal.Signal.INT, s -> {
            LocalSession current = session;
            if (current != null) current.cancel();
        });

        if (request.resume() != null) { // its conversation is shown before the prompt
            if (!open(request.resume(), true)) return ExitCodes.FAILED;
            applySettings();
        } else { // opened while the first prompt is typed
            if (request.mode() != null) mode = request.mode();
            opening = CompletableFuture.runAsync(() -> {
                if (open(null, false)) applySettings();
            }, r -> Thread.ofPlatform().daemon().name("open-session").start(r));
        }
        boolean early = drawnEarly;
        if (!early) write(hint(ansi) + "\n");
        if (request.question() != null) { // agent "QUESTION": asked as if typed at the first prompt
            write(status() + "\n" + prompt(ansi) + request.question() + "\n");
            reader.getHistory().add(request.question());
            if (!sessionReady()) return close(ExitCodes.FAILED);
            Integer exit = handle(request.question().strip());
            if (exit != null) return close(exit);
        }
        boolean interruptedOnce = false;
        while (true) {
            write(early ? "\r" : status() + "\n"); // the early prompt's line is drawn again by JLine
            early = false;
            String line;
            try {
                reading = true;
                line = reader.readLine(prompt(ansi));
            } catch (UserInterruptException e) {
                if (e.getPartialLine() == null || e.getPartialLine().isEmpty()) {
                    if (interruptedOnce) {
                        sessionReady();
                        return close(ExitCodes.OK);
                    }
                    interruptedOnce = true;
                    write(ansi.dim("(Ctrl-C again or Ctrl-D to exit)") + "\n");
                } else {
                    interruptedOnce = false;
                }
                continue;
            } catch (EndOfFileException | java.io.IOError e) { // Ctrl-D, or the terminal went away
                sessionReady();
                return close(ExitCodes.OK);
            } finally {
                reading = false;
            }
            interruptedOnce = false;
            if (line.isBlank()) continue;
            if (!sessionReady()) return close(ExitCodes.FAILED);
            Integer exit = handle(line.strip());
            if (exit != null) return close(exit);
        }
    }

    /**
     * The chat's line editor: history in the XDG state directory, completion, '!' not a history event, Enter sends
     * (after a backslash it starts a new line), Alt-Enter starts a new line.
     */
    static LineReader lineReader(Terminal terminal, Path historyFile, org.jline.reader.Completer completer) {
        LineReader reader = LineReaderBuilder.builder().terminal(terminal).appName("agent")
                .variable(LineReader.HISTORY_FILE, History.privateFile(historyFile))
                .variable(LineReader.HISTORY_SIZE, 2000)
                .variable(LineReader.SECONDARY_PROMPT_PATTERN, "  ")
                .completer(completer)
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true) // '!' starts a command, not a history event
                .option(LineReader.Option.HISTORY_TIMESTAMPED, false)
                .build();
        reader.getWidgets().put("agent-newline", () -> {
            reader.getBuffer().write('\n');
            return true;
        });
        reader.getWidgets().put("agent-accept", () -> {
            var buffer = reader.getBuffer();
            if (buffer.cursor() == buffer.length() && buffer.length() > 0 && buffer.prevChar() == '\\') {
                buffer.backspace();
                buffer.write('\n');
                return true;
            }
            return reader.getBuiltinWidgets().get(LineReader.ACCEPT_LINE).apply();
        });
        var main = reader.getKeyMaps().get(LineReader.MAIN);
        main.bind(new Reference("agent-newline"), KeyMap.alt('\r'));
        main.bind(new Reference("agent-accept"), "\r");
        // the arrows as a terminal sends them before JLine switches it to application keys ("\eOA"): typed while the
        // first prompt was drawn early, or in a terminal that ignores the switch
        main.bind(new Reference(LineReader.UP_LINE_OR_SEARCH), "\u001b[A");
        main.bind(new Reference(LineReader.DOWN_LINE_OR_SEARCH), "\u001b[B");
        main.bind(new Reference(LineReader.FORWARD_CHAR), "\u001b[C");
        main.bind(new Reference(LineReader.BACKWARD_CHAR), "\u001b[D");
        main.bind(new Reference(LineReader.BEGINNING_OF_LINE), "\u001b[H");
        main.bind(new Reference(LineReader.END_OF_LINE), "\u001b[F");
        return reader;
    }

    private void applySettings() {
        try {
            if (request.mode() != null) session.setMode(request.mode());
            if (request.model() != null) session.setModel(request.model());
        } catch (CoreException e) {
            write(ansi.red("agent: " + InertText.forTerminal(e.getMessage())) + "\n");
        }
    }

    /** Waits for the session opened in the background; false when it could not be opened. */
    private boolean sessionReady() {
        CompletableFuture<Void> o = opening;
        if (o != null) {
            o.join();
            opening = null;
        }
        return session != null;
    }

    private int close(int code) {
        LocalSession s = session;
        if (s != null) s.close();
        terminal.writer().flush();
        return code;
    }

    /** Runs what the person typed; returns an exit code to leave with, or null to go on. */
    private Integer handle(String line) {
        List<ContentBlock> pasted = Mentions.pastedImage(line, w -> write(ansi.yellow("⚠ " + InertText.forTerminal(w)) + "\n"));
        if (pasted != null) {
            runTurn(() -> session.prompt(pasted));
            return null;
        }
        if (line.startsWith("/")) {
            String name = line.substring(1).split("\\s+", 2)[0];
            String args = line.contains(" ") ? line.substring(line.indexOf(' ') + 1).strip() : "";
            switch (name) {
                case "exit", "quit" -> { return ExitCodes.OK; }
                case "new" -> {
                    session.close();
                    if (!open(null, false)) return ExitCodes.FAILED;
                    write(ansi.dim("New conversation.") + "\n");
                    return null;
                }
                case "resume" -> {
                    LocalSession previous = session;
                    previous.close();
                    if (!open(args, true)) {
                        if (!open(previous.id(), false)) return ExitCodes.FAILED;
                    }
                    return null;
                }
                case "sessions" -> {
                    listSessions();
                    return null;
                }
                case "model" -> {
                    if (args.isEmpty()) {
                        String picked = pickModel();
                        if (picked == null) return null;
                        line = "/model " + picked;
                    }
                }
                case "help" -> {
                    List<ContentBlock> help = List.of(ContentBlock.text(line));
                    runTurn(() -> session.prompt(help));
                    write(ansi.dim("In this terminal also: /sessions, /resume ID, /new, /exit; @path attaches a file; "
                            + "!command runs a command; Alt-Enter (or \\ then Enter) for a new line; Ctrl-C cancels.") + "\n");
                    return null;
                }
                default -> { }
            }
        }
        if (line.startsWith("!") && line.length() > 1) {
            String command = line.substring(1).strip();
            printer.wholeOutput(true); // the user's own command: its output is for them, shown whole
            try {
                runTurn(() -> session.runCommand(command));
            } finally {
                printer.wholeOutput(false);
            }
            return null;
        }
        List<ContentBlock> prompt = Mentions.attach(line, request.cwd(), w -> write(ansi.yellow("⚠ " + InertText.forTerminal(w)) + "\n"));
        runTurn(() -> session.prompt(prompt));
        return null;
    }

    /** Runs a turn on its own thread; Ctrl-C (SIGINT) cancels it meanwhile. */
    private void runTurn(java.util.function.Supplier<TurnResult> turn) {
        StopReason[] reason = new StopReason[1];
        RuntimeException[] failure = new RuntimeException[1];
        Thread worker = Thread.ofPlatform().name("turn").start(() -> {
            try {
                reason[0] = turn.get().stopReason();
            } catch (RuntimeException e) {
                failure[0] = e;
            }
        });
        try {
            worker.join();
        } catch (InterruptedException e) {
            session.cancel();
            Thread.currentThread().interrupt();
        }
        printer.finish();
        if (failure[0] != null) write(ansi.red("agent: " + InertText.forTerminal(failure[0].getMessage())) + "\n");
        if (reason[0] == StopReason.CANCELLED) write(ansi.yellow("⏹ cancelled") + "\n");
        else if (reason[0] == StopReason.MAX_TOKENS) write(ansi.yellow("(the answer hit the model's length limit)") + "\n");
        else if (reason[0] == StopReason.MAX_TURN_REQUESTS) write(ansi.yellow("(stopped: too many model calls in one turn)") + "\n");
        else if (reason[0] == StopReason.REFUSAL) write(ansi.yellow("(the model refused)") + "\n");
    }

    /** Opens a new session ({@code resume} null) or reopens one, showing its conversation when {@code replay}. */
    private boolean open(String resume, boolean replay) {
        try {
            session = LocalSession.open(sessions, request.cwd(), resume, replay, this);
            settings(session.session().settings());
            printer.finish();
            if (resume != null) write(ansi.dim("Resumed " + session.id() + ".") + "\n");
            return true;
        } catch (LocalSession.OpenException e) {
            write(ansi.red("agent: " + InertText.forTerminal(e.getMessage())) + "\n");
            if (resume == null) return false;
            return open(null, false);
        }
    }

    private void listSessions() {
        try {
            List<SessionSummary> items = sessions.list(request.cwd(), null, 20).items();
            if (items.isEmpty()) write(ansi.dim("No saved conversations for this directory.") + "\n");
            for (SessionSummary s : items) {
                String when = s.updatedAt() == null ? "" : s.updatedAt().toString().replace('T', ' ').replaceAll("\\.\\d+Z$", "Z");
                String title = InertText.forTerminal(s.readable() ? (s.title() == null ? "(untitled)" : s.title()) : "unreadable: " + s.problem());
                String current = s.sessionId().equals(session.id()) ? ansi.green(" (this one)") : "";
                write("  " + ansi.cyan(s.sessionId().substring(0, 8)) + "  " + ansi.dim(when) + "  " + title + current + "\n");
            }
            write(ansi.dim("/resume ID reopens one (a unique prefix of the id is enough).") + "\n");
        } catch (CoreException | RuntimeException e) {
            write(ansi.red("agent: " + InertText.forTerminal(e.getMessage())) + "\n");
        }
    }

    /** The model picker: the configured choices, numbered; returns the chosen value or null. */
    private String pickModel() {
        List<Setting.Choice> choices = models;
        if (choices.isEmpty()) return null;
        for (int i = 0; i < choices.size(); i++) {
            Setting.Choice c = choices.get(i);
            String mark = c.value().equals(model) ? ansi.green(" ●") : "";
            write("  " + ansi.yellow(String.valueOf(i + 1)) + "  " + InertText.forTerminal(c.value()) + mark + "\n");
        }
        String answer;
        try {
            reading = true;
            answer = reader.readLine(ansi.dim("model (number or name, Enter keeps it): ")).strip();
        } catch (UserInterruptException | EndOfFileException e) {
            return null;
        } finally {
            reading = false;
        }
        if (answer.isEmpty()) return null;
        if (answer.matches("\\d+")) {
            int n = Integer.parseInt(answer);
            return n >= 1 && n <= choices.size() ? choices.get(n - 1).value() : null;
        }
        return answer;
    }

    private String status() {
        return status(ansi, model, mode, used, size);
    }

    /** The status line: model, mode and how much of the context window the conversation uses. */
    private static String status(Ansi ansi, String model, String mode, long used, long size) {
        String context = size > 0 ? " · context " + Math.min(100, Math.round(100.0 * used / size)) + "%" : "";
        String shortModel = model.contains("/") ? model.substring(model.indexOf('/') + 1) : model;
        return ansi.dim(InertText.forTerminal((shortModel.isEmpty() ? "" : shortModel + " · ") + mode + context));
    }

    // ---------------------------------------------------------------- View

    @Override
    public void event(AgentEvent event) {
        switch (event) {
            case AgentEvent.UsageChanged u -> {
                used = u.used();
                size = u.size();
            }
            case AgentEvent.ModeChanged m -> mode = m.modeId();
            case AgentEvent.SettingsChanged c -> settings(c.settings());
            case AgentEvent.CommandsChanged a -> {
                List<String> names = new ArrayList<>();
                a.commands().forEach(cmd -> names.add(cmd.name()));
                commands.clear();
                commands.addAll(names);
            }
            case AgentEvent.TitleChanged t -> { }
            default -> printer.event(event);
        }
    }

    private void settings(List<Setting> settings) {
        for (Setting o : settings) {
            if (o.id().equals(Setting.MODEL)) {
                if (o.currentValue() != null) model = o.currentValue();
                models = o.choices() == null ? List.of() : List.copyOf(o.choices());
            }
            if (o.id().equals(Setting.MODE) && o.currentValue() != null) mode = o.currentValue();
        }
    }

    @Override
    public String choose(AgentEvent.ToolCallStarted call, List<ApprovalOption> options, Cancellation cancel) {
        printer.finish();
        return keys.ask(call == null || call.title() == null ? "Allow this?" : call.title(), options, cancel);
    }

    /** The agent's free-text question (ask_user): answered on a line of its own; Ctrl-C or Ctrl-D leaves it unanswered. */
    @Override
    public java.util.Optional<String> ask(Question question, Cancellation cancel) {
        printer.finish();
        write(ansi.yellow("? ") + ansi.bold(InertText.forTerminal(question.text())) + "\n");
        if (!question.options().isEmpty()) write(ansi.dim("  e.g. " + InertText.forTerminal(String.join(" · ", question.options()))) + "\n");
        try {
            reading = true;
            String answer = reader.readLine(ansi.cyan("answer› ")).strip();
            return answer.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(answer);
        } catch (UserInterruptException | EndOfFileException e) {
            return java.util.Optional.empty();
        } finally {
            reading = false;
        }
    }

    // ---------------------------------------------------------------- Screen

    @Override
    public synchronized void write(String text) {
        if (reading && reader != null && reader.isReading()) {
            reader.printAbove(text.endsWith("\n") ? text.substring(0, text.length() - 1) : text);
            return;
        }
        terminal.writer().write(text);
        terminal.writer().flush();
    }

    @Override
    public int width() { return terminal.getWidth(); }
}
