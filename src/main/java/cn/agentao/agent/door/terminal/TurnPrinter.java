package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.util.InertText;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Shows a session's events on a terminal as they arrive: the answer as rendered Markdown (the line being written
 * appears at once and is redrawn rendered when it ends), reasoning dimmed, each tool call as one line (edits as a
 * coloured diff, command output tailed), plans as a checklist, the user's own messages of a replay. Every text of an
 * event is made inert ({@link InertText}) before it is shown: the only escape codes written are the printer's own;
 * tool titles (a command to approve among them) show every character.
 */
final class TurnPrinter {
    /** Where the text goes. */
    interface Screen {
        void write(String text);

        /** Columns, for redrawing a wrapped line; 0 when unknown. */
        int width();
    }

    static final int OUTPUT_TAIL = 5;
    static final int DIFF_LINES = 30;

    private enum Stream { NONE, ANSWER, THOUGHT }

    private final Screen screen;
    private final Ansi ansi;
    private MarkdownRenderer markdown;
    private Stream stream = Stream.NONE;
    private final StringBuilder partial = new StringBuilder();
    /** How much of {@link #partial} is on the screen unrendered. */
    private int shown;
    private final Map<String, String> titles = new HashMap<>();
    private final Map<String, ToolKind> kinds = new HashMap<>();
    private final InertText.Stream streamed = new InertText.Stream();
    /** Whether a command's output is shown whole rather than its last {@link #OUTPUT_TAIL} lines (the user's {@code !command}). */
    private boolean wholeOutput;

    TurnPrinter(Screen screen, Ansi ansi) {
        this.screen = screen;
        this.ansi = ansi;
        this.markdown = new MarkdownRenderer(ansi);
    }

    synchronized void event(AgentEvent event) {
        switch (event) {
            case AgentEvent.MessageChunk c when c.content() instanceof ContentBlock.Text t -> text(Stream.ANSWER, t.text());
            case AgentEvent.ThoughtChunk c when c.content() instanceof ContentBlock.Text t -> text(Stream.THOUGHT, t.text());
            case AgentEvent.UserMessage c when c.content() instanceof ContentBlock.Text t -> {
                endStream();
                line(ansi.bold(ansi.green("› ")) + ansi.bold(InertText.forTerminal(t.text().strip()).replace("\n", "\n  ")));
            }
            case AgentEvent.ToolCallStarted call -> {
                endStream();
                titles.put(call.toolCallId(), call.title());
                if (call.kind() != null) kinds.put(call.toolCallId(), call.kind());
                line(ansi.blue("⏺ ") + toolLine(call.kind(), call.title()) + status(call.status()));
                content(call.toolCallId(), call.content());
            }
            case AgentEvent.ToolCallUpdated u -> {
                if (u.title() != null) titles.put(u.toolCallId(), u.title());
                if (u.kind() != null) kinds.put(u.toolCallId(), u.kind());
                if (u.status() != ToolCallStatus.COMPLETED && u.status() != ToolCallStatus.FAILED) return;
                endStream();
                String title = titles.getOrDefault(u.toolCallId(), u.toolCallId());
                String mark = u.status() == ToolCallStatus.COMPLETED ? ansi.green("  ✓ ") : ansi.red("  ✗ ");
                line(mark + toolLine(kinds.get(u.toolCallId()), title) + status(u.status()));
                content(u.toolCallId(), u.content());
            }
            case AgentEvent.Notice n -> {
                endStream();
                line(ansi.yellow("⚠ " + InertText.forTerminal(n.text())));
            }
            case AgentEvent.PlanChanged plan -> {
                endStream();
                line(ansi.bold("Plan"));
                for (PlanEntry e : plan.entries()) {
                    String status = String.valueOf(e.status());
                    String entry = InertText.forTerminal(e.content());
                    String box = switch (status.toLowerCase(java.util.Locale.ROOT)) {
                        case "completed" -> ansi.green("  ☑ ") + ansi.dim(entry);
                        case "in_progress" -> ansi.yellow("  ◐ ") + entry;
                        default -> "  ☐ " + entry;
                    };
                    line(box);
                }
            }
            default -> { }
        }
    }

    /** Shows the output of the tool calls that follow whole (the user's own {@code !command}), or tailed again. */
    synchronized void wholeOutput(boolean whole) {
        wholeOutput = whole;
    }

    /** The turn ended: the line being written is finished and anything held (a table) is shown. */
    synchronized void finish() {
        endStream();
    }

    /** A line of its own, outside the answer (a notice, the agent's own messages). */
    synchronized void line(String text) {
        screen.write(text + "\n");
    }

    private static String toolLine(ToolKind kind, String title) {
        return (title == null ? "tool" : InertText.forApproval(title));
    }

    private String status(ToolCallStatus status) {
        if (status == null) return "";
        return ansi.dim(" · " + String.valueOf(status).toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
    }

    private void content(String id, List<ToolCallContent> content) {
        if (content == null) return;
        for (ToolCallContent c : content) {
            if (c instanceof ToolCallContent.Diff d) {
                List<LineDiff.Line> lines = LineDiff.diff(d.oldText(), d.newText(), 2);
                int n = 0;
                for (LineDiff.Line diffLine : lines) {
                    LineDiff.Line l = new LineDiff.Line(diffLine.kind(), InertText.forTerminal(diffLine.text()));
                    if (++n > DIFF_LINES) {
                        line(ansi.dim("    … " + (lines.size() - DIFF_LINES) + " more lines"));
                        break;
                    }
                    switch (l.kind()) {
                        case '+' -> line("    " + ansi.green("+ " + l.text()));
                        case '-' -> line("    " + ansi.red("- " + l.text()));
                        case '…' -> line(ansi.dim("    …"));
                        default -> line(ansi.dim("    " + "  " + l.text()));
                    }
                }
            } else if (c instanceof ToolCallContent.Content t && t.content() instanceof ContentBlock.Text text) {
                List<String> lines = text.text().strip().lines().toList();
                if (lines.isEmpty()) continue;
                int from = wholeOutput ? 0 : Math.max(0, lines.size() - OUTPUT_TAIL);
                if (from > 0) line(ansi.dim("    … " + from + " lines above"));
                for (String l : lines.subList(from, lines.size())) line(ansi.dim("    " + InertText.forTerminal(l)));
            } else if (c instanceof ToolCallContent.Content t && t.content() instanceof ContentBlock.ResourceLink link) {
                String title = link.title() != null ? link.title() : link.name();
                line(ansi.dim("    " + InertText.forApproval(title) + " <" + InertText.forApproval(link.uri()) + ">"));
            }
        }
    }

    // ---------------------------------------------------------------- streamed text

    private void text(Stream kind, String raw) {
        if (stream != kind) {
            endStream();
            stream = kind;
        }
        String delta = streamed.next(raw);
        for (int i = 0; i < delta.length(); i++) {
            char ch = delta.charAt(i);
            if (ch == '\n') {
                completeLine();
            } else {
                partial.append(ch);
            }
        }
        showPartial();
    }

    /** Writes what arrived of the current line as it is (a table row waits: it is aligned once the table ends). */
    private void showPartial() {
        if (partial.length() <= shown) return;
        if (stream == Stream.ANSWER && ansi.colour() && partial.toString().stripLeading().startsWith("|")) return;
        String more = partial.substring(shown);
        screen.write(stream == Stream.THOUGHT ? ansi.dim(more) : more);
        shown = partial.length();
    }

    private void completeLine() {
        String source = partial.toString();
        if (!ansi.colour()) { // plain text is its own rendering: what is not on the screen yet, and the line's end
            screen.write(source.substring(Math.min(shown, source.length())) + "\n");
        } else {
            erasePartial();
            if (stream == Stream.THOUGHT) screen.write(ansi.dim(ansi.italic(source)) + "\n");
            else for (String l : markdown.line(source)) screen.write(l + "\n");
        }
        partial.setLength(0);
        shown = 0;
    }

    /** Takes back the unrendered text of the current line (it may have wrapped) so its rendering replaces it. */
    private void erasePartial() {
        if (shown == 0) return;
        int width = screen.width();
        int rows = width > 0 ? (shown - 1) / width : 0;
        screen.write((rows > 0 ? "\u001b[" + rows + "A" : "") + "\r\u001b[J");
        shown = 0;
    }

    private void endStream() {
        streamed.end();
        if (partial.length() > 0) completeLine();
        partial.setLength(0);
        shown = 0;
        if (stream == Stream.ANSWER) for (String l : markdown.finish()) screen.write(l + "\n");
        stream = Stream.NONE;
    }
}
