package cn.agentao.agent.door.terminal;

import cn.agentao.agent.util.InertText;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Streamed Markdown to terminal lines, one source line at a time (a table waits for its last row, so its columns
 * line up): headings, lists, quotes, rules, code blocks, tables, and inline emphasis, code and links. Without
 * colour the source is passed through as it is (Markdown reads well as plain text). The source is made inert first
 * ({@link InertText#forTerminal}): the only escape codes in what it returns are its own styles.
 */
final class MarkdownRenderer {
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*)$");
    private static final Pattern BULLET = Pattern.compile("^(\\s*)[-*+]\\s+(.*)$");
    private static final Pattern TASK = Pattern.compile("^\\[([ xX])\\]\\s+(.*)$");
    private static final Pattern NUMBERED = Pattern.compile("^(\\s*)(\\d+[.)])\\s+(.*)$");
    private static final Pattern RULE = Pattern.compile("^\\s*([-*_])(\\s*\\1){2,}\\s*$");
    private static final Pattern TABLE_SEPARATOR = Pattern.compile("^\\s*\\|?\\s*:?-{3,}:?\\s*(\\|\\s*:?-{3,}:?\\s*)*\\|?\\s*$");
    private static final Pattern INLINE = Pattern.compile(
            "`([^`]+)`|\\*\\*(.+?)\\*\\*|__(.+?)__|(?<![\\w*])\\*(?!\\s)(.+?)(?<!\\s)\\*(?![\\w*])|(?<!\\w)_(?!\\s)(.+?)(?<!\\s)_(?!\\w)|\\[([^\\]]+)\\]\\(([^)\\s]+)\\)");

    private final Ansi ansi;
    private boolean inCode;
    private final List<String> table = new ArrayList<>();

    MarkdownRenderer(Ansi ansi) {
        this.ansi = ansi;
    }

    /** Renders one complete source line; returns the lines to print now (none while a table is being read). */
    List<String> line(String text) {
        String source = InertText.forTerminal(text);
        List<String> out = new ArrayList<>();
        if (!ansi.colour()) {
            out.add(source);
            return out;
        }
        boolean tableRow = !inCode && source.strip().startsWith("|");
        if (!tableRow && !table.isEmpty()) out.addAll(flushTable());
        if (tableRow) {
            table.add(source.strip());
            return out;
        }
        String stripped = source.strip();
        if (stripped.startsWith("```") || stripped.startsWith("~~~")) {
            inCode = !inCode;
            String lang = inCode ? stripped.substring(3).strip() : "";
            out.add(ansi.dim(inCode ? "┌─" + (lang.isEmpty() ? "" : " " + lang) : "└─"));
            return out;
        }
        if (inCode) {
            out.add(ansi.dim("│ ") + ansi.cyan(source));
            return out;
        }
        out.add(block(source));
        return out;
    }

    /** The end of the answer: whatever is still held (a table) is rendered. */
    List<String> finish() {
        inCode = false;
        return table.isEmpty() ? List.of() : flushTable();
    }

    private String block(String source) {
        Matcher m = HEADING.matcher(source);
        if (m.matches()) {
            String text = inline(m.group(2));
            return m.group(1).length() == 1 ? ansi.bold(ansi.underline(ansi.magenta(text))) : ansi.bold(ansi.magenta(text));
        }
        if (RULE.matcher(source).matches()) return ansi.dim("─".repeat(40));
        m = BULLET.matcher(source);
        if (m.matches()) {
            Matcher task = TASK.matcher(m.group(2));
            if (task.matches()) {
                boolean done = !task.group(1).isBlank();
                return m.group(1) + (done ? ansi.green("☑ ") : "☐ ") + inline(task.group(2));
            }
            return m.group(1) + ansi.yellow("• ") + inline(m.group(2));
        }
        m = NUMBERED.matcher(source);
        if (m.matches()) return m.group(1) + ansi.yellow(m.group(2)) + " " + inline(m.group(3));
        if (source.startsWith(">")) return ansi.dim("│ ") + ansi.italic(inline(source.substring(1).strip()));
        return inline(source);
    }

    /** Inline code, strong, emphasis and links. */
    String inline(String text) {
        Matcher m = INLINE.matcher(text);
        StringBuilder sb = new StringBuilder();
        int last = 0;
        while (m.find()) {
            sb.append(text, last, m.start());
            if (m.group(1) != null) sb.append(ansi.cyan(m.group(1)));
            else if (m.group(2) != null) sb.append(ansi.bold(m.group(2)));
            else if (m.group(3) != null) sb.append(ansi.bold(m.group(3)));
            else if (m.group(4) != null) sb.append(ansi.italic(m.group(4)));
            else if (m.group(5) != null) sb.append(ansi.italic(m.group(5)));
            else sb.append(ansi.underline(ansi.blue(m.group(6)))).append(ansi.dim(" (" + m.group(7) + ")"));
            last = m.end();
        }
        return sb.append(text.substring(last)).toString();
    }

    private List<String> flushTable() {
        List<List<String>> rows = new ArrayList<>();
        int header = -1;
        for (String row : table) {
            if (TABLE_SEPARATOR.matcher(row).matches()) {
                if (header < 0) header = rows.size();
                continue;
            }
            String body = row.startsWith("|") ? row.substring(1) : row;
            if (body.endsWith("|")) body = body.substring(0, body.length() - 1);
            List<String> cells = new ArrayList<>();
            for (String cell : body.split("(?<!\\\\)\\|", -1)) cells.add(cell.strip());
            rows.add(cells);
        }
        table.clear();
        int columns = rows.stream().mapToInt(List::size).max().orElse(0);
        int[] width = new int[columns];
        for (List<String> r : rows) for (int i = 0; i < r.size(); i++) width[i] = Math.max(width[i], r.get(i).length());
        List<String> out = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                String cell = i < rows.get(r).size() ? rows.get(r).get(i) : "";
                String padded = cell + " ".repeat(width[i] - cell.length());
                sb.append(i == 0 ? "" : ansi.dim(" │ ")).append(r < header ? ansi.bold(inline(padded)) : inline(padded));
            }
            out.add(sb.toString());
            if (r == header - 1) {
                StringBuilder rule = new StringBuilder();
                for (int i = 0; i < columns; i++) rule.append(i == 0 ? "" : "─┼─").append("─".repeat(width[i]));
                out.add(ansi.dim(rule.toString()));
            }
        }
        return out;
    }
}
