package cn.agentao.agent.core;

import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.tool.BackgroundProcesses;
import cn.agentao.agent.core.tool.CommandSource;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.memory.Memory;
import cn.agentao.agent.memory.MemoryCommand;
import cn.agentao.agent.model.ModelChoice;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's slash commands: which there are (built-ins, the user's prompt templates, the MCP servers' prompts)
 * and running them. Built-ins are answered here; a template or MCP prompt becomes a prompt for the model.
 */
final class SessionCommands {
    private final Path configDir;
    private final ModelSettings settings;
    private final Compaction compaction;
    private final TurnRunner turns;
    private final MemoryCommand memory;
    private final TrustedProjects trust;

    SessionCommands(Path configDir, ModelSettings settings, Compaction compaction, TurnRunner turns, Memory memory,
                    TrustedProjects trust) {
        this.configDir = configDir;
        this.trust = trust;
        this.settings = settings;
        this.compaction = compaction;
        this.turns = turns;
        this.memory = new MemoryCommand(memory);
    }

    List<AvailableCommand> available(Session session) {
        List<AvailableCommand> all = new ArrayList<>(SlashCommands.advertised(userCommands(session)));
        if (!session.host().keepsMemory()) all.removeIf(a -> a.name().equals("memory"));
        if (!session.host().answersForUser()) all.removeIf(a -> a.name().equals("undo") || a.name().equals("rewind"));
        for (CommandSource source : session.commandSources()) all.addAll(source.commands());
        return all;
    }

    /** Runs {@code c}; null when no command has its name (the prompt then goes to the model as written). */
    StopReason run(Session session, SlashCommands.Invocation c, List<ContentBlock> prompt, Cancellation cancel) {
        switch (c.name()) {
            case "help" -> {
                StringBuilder sb = new StringBuilder("Commands:\n");
                for (AvailableCommand a : available(session)) {
                    sb.append("- `/").append(a.name()).append(a.inputHint() == null ? "" : " <" + a.inputHint() + ">")
                            .append("`: ").append(a.description()).append('\n');
                }
                say(session, prompt, sb.toString());
                return StopReason.END_TURN;
            }
            case "model" -> {
                if (c.arguments().isEmpty()) {
                    say(session, prompt, "Current model: `" + session.model() + "`. Available: "
                            + String.join(", ", settings.catalog(session.cwd()).choices().stream().map(ModelChoice::value).toList()));
                    return StopReason.END_TURN;
                }
                try {
                    settings.setModel(session, c.arguments());
                    say(session, prompt, "Model switched to `" + session.model() + "` for the next turn.");
                } catch (CoreException e) {
                    say(session, prompt, "Cannot switch model: " + e.getMessage());
                }
                return StopReason.END_TURN;
            }
            case "mode" -> {
                String id = c.arguments();
                try {
                    settings.setMode(session, id);
                    say(session, prompt, "Mode switched to `" + id + "`.");
                } catch (CoreException e) {
                    say(session, prompt, "Current mode: `" + session.modeId() + "`. Modes: " + ModelSettings.modeIds() + ".");
                }
                return StopReason.END_TURN;
            }
            case "memory" -> {
                say(session, prompt, session.host().keepsMemory() ? memory.run(session.cwd(), c.arguments())
                        : "This session keeps no memory: memory is kept only for this machine's user, not for a space "
                        + "or a remote caller.");
                return StopReason.END_TURN;
            }
            case "ps" -> {
                List<BackgroundProcesses.Entry> all = session.background().all();
                StringBuilder sb = new StringBuilder(all.isEmpty() ? "No command was started in the background in this session.\n"
                        : "Background commands:\n");
                for (BackgroundProcesses.Entry e : all) {
                    sb.append("- ").append(e.describe()).append(": ").append(e.process().running() ? "running" : "ended").append('\n');
                }
                say(session, prompt, sb.toString());
                return StopReason.END_TURN;
            }
            case "undo", "rewind" -> {
                takeBack(session, c, prompt, cancel);
                return StopReason.END_TURN;
            }
            case "compact" -> {
                SessionRecords.userPrompt(session, prompt, true);
                boolean done = compaction.compact(session, settings.forTurn(session).client(), cancel);
                if (cancel.isCancelled()) return StopReason.CANCELLED;
                String msg = done ? "Older turns were summarised; the conversation continues from the summary."
                        : "Nothing to compact yet.";
                session.emit(AgentEvent.MessageChunk.text(msg));
                SessionRecords.agentText(session, msg);
                return StopReason.END_TURN;
            }
            default -> {
                SlashCommands.UserCommand user = userCommands(session).get(c.name());
                if (user != null) return turns.run(session, List.of(ContentBlock.text(user.expand(c.arguments()))), cancel);
                CommandSource source = session.commandSources().stream().filter(x -> x.hasCommand(c.name())).findFirst().orElse(null);
                if (source == null) return null;
                String text;
                try {
                    text = source.prompt(c.name(), c.arguments(), cancel);
                } catch (CancelledException e) {
                    return StopReason.CANCELLED;
                } catch (ToolException e) {
                    say(session, prompt, "Cannot run /" + c.name() + ": " + e.getMessage());
                    return StopReason.END_TURN;
                }
                return turns.run(session, List.of(ContentBlock.text(text)), cancel);
            }
        }
    }

    /** The user's commands and, when the user trusts the project, the project's. */
    private java.util.Map<String, SlashCommands.UserCommand> userCommands(Session session) {
        return SlashCommands.userCommands(session.cwd(), configDir, trust.trusted(session.cwd()));
    }

    /**
     * {@code /undo}, {@code /rewind N} (or the list of turns without N): the files go back through the session's own
     * file access (the editor's buffers in ACP), and the model's history gets a note of it.
     */
    private static void takeBack(Session session, SlashCommands.Invocation c, List<ContentBlock> prompt, Cancellation cancel) {
        Checkpoints checkpoints = session.checkpoints();
        var files = session.host().environment().files(cancel);
        Checkpoints.Result result;
        if (!session.host().answersForUser()) { // a space's members: they do not speak for the files' owner
            result = Checkpoints.Result.nothing("/" + c.name() + " is for this machine's user, not for a space's members.");
        } else if (c.name().equals("undo")) {
            result = c.arguments().isEmpty() ? checkpoints.undo(files)
                    : Checkpoints.Result.nothing("/undo takes no argument; to go back further, use /rewind N.");
        } else if (c.arguments().isEmpty()) {
            result = Checkpoints.Result.nothing(checkpoints.list());
        } else if (c.arguments().matches("[0-9]{1,9}")) {
            result = checkpoints.rewind(files, Integer.parseInt(c.arguments()));
        } else {
            result = Checkpoints.Result.nothing("/rewind takes a turn number (see /rewind for the list), not \""
                    + c.arguments() + "\".");
        }
        say(session, prompt, result.text());
        if (result.note() != null) {
            dev.langchain4j.data.message.UserMessage note = dev.langchain4j.data.message.UserMessage.from(result.note());
            session.conversation().add(note);
            SessionRecords.modelMessage(session, note); // part of the history on reload, not a turn of its own
        }
    }

    /** A command's answer: recorded with the prompt so a replay shows both. */
    private static void say(Session session, List<ContentBlock> prompt, String text) {
        SessionRecords.userPrompt(session, prompt, true);
        session.emit(AgentEvent.MessageChunk.text(text));
        SessionRecords.agentText(session, text);
    }
}
