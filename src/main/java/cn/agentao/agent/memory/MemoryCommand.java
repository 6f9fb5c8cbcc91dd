package cn.agentao.agent.memory;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code /memory}: the user's own view of the memory and their hand on it. {@code show} (or nothing) lists the facts
 * of both scopes, numbered, with their files; {@code add [--user|--project] <fact>} saves one (the project's by
 * default); {@code forget <number|text>} removes the fact with that number in {@code show}, or the one fact that
 * contains the text.
 */
public final class MemoryCommand {
    private final Memory memory;

    public MemoryCommand(Memory memory) {
        this.memory = memory;
    }

    /** The answer to {@code /memory arguments} in a session in {@code project}. */
    public String run(Path project, String arguments) {
        String args = arguments.strip();
        int sp = args.indexOf(' ');
        String verb = (sp < 0 ? args : args.substring(0, sp)).toLowerCase(Locale.ROOT);
        String rest = sp < 0 ? "" : args.substring(sp + 1).strip();
        return switch (verb) {
            case "", "show", "list" -> show(project);
            case "add" -> add(project, rest);
            case "forget", "remove" -> forget(project, rest);
            default -> "Unknown: `/memory " + verb + "`. Use `/memory show`, `/memory add [--user] <fact>` or "
                    + "`/memory forget <number or text>`.";
        };
    }

    private String show(Path project) {
        List<Memory.Entry> entries = memory.entries(project); // the user's first: numbered across both
        StringBuilder sb = new StringBuilder();
        for (Memory.Scope scope : Memory.Scope.values()) {
            sb.append(scope == Memory.Scope.USER ? "User memory" : "Project memory").append(" (`")
                    .append(memory.file(scope, project)).append("`):\n");
            boolean any = false;
            for (int i = 0; i < entries.size(); i++) {
                if (entries.get(i).scope() != scope) continue;
                sb.append(i + 1).append(". ").append(entries.get(i).text()).append('\n');
                any = true;
            }
            sb.append(any ? "\n" : "(nothing yet)\n\n");
        }
        return sb.append("Add with `/memory add [--user] <fact>`, remove with `/memory forget <number or text>`, or edit the files.")
                .toString();
    }

    private String add(Path project, String rest) {
        Memory.Scope scope = Memory.Scope.PROJECT;
        if (rest.startsWith("--user")) {
            scope = Memory.Scope.USER;
            rest = rest.substring("--user".length()).strip();
        } else if (rest.startsWith("--project")) {
            rest = rest.substring("--project".length()).strip();
        }
        try {
            String line = memory.add(scope, project, rest);
            return "Saved to the " + scope.id() + " memory: " + line.substring(2);
        } catch (Memory.MemoryException e) {
            return "Not saved: " + e.getMessage() + ".";
        }
    }

    private String forget(Path project, String what) {
        if (what.isEmpty()) return "Say what to forget: `/memory forget <number or text>` (numbers as `/memory show` lists them).";
        List<Memory.Entry> entries = memory.entries(project);
        List<Memory.Entry> matches;
        if (what.matches("\\d{1,6}")) {
            int i = Integer.parseInt(what) - 1;
            if (i < 0 || i >= entries.size()) return "There is no fact number " + what + "; `/memory show` lists them.";
            matches = List.of(entries.get(i));
        } else {
            String needle = what.toLowerCase(Locale.ROOT);
            matches = entries.stream().filter(e -> e.text().toLowerCase(Locale.ROOT).contains(needle)).toList();
        }
        if (matches.isEmpty()) return "No fact contains \"" + what + "\"; `/memory show` lists them.";
        if (matches.size() > 1) {
            StringBuilder sb = new StringBuilder("Several facts contain \"" + what + "\"; nothing was forgotten. Say which "
                    + "by its number:\n");
            for (Memory.Entry e : matches) sb.append(entries.indexOf(e) + 1).append(". ").append(e.text()).append('\n');
            return sb.toString();
        }
        Memory.Entry e = matches.getFirst();
        try {
            if (!memory.forget(project, e)) return "The memory file changed meanwhile; nothing was forgotten. Try again.";
        } catch (Memory.MemoryException x) {
            return "Not forgotten: " + x.getMessage() + ".";
        }
        return "Forgotten from the " + e.scope().id() + " memory: " + e.text();
    }
}
