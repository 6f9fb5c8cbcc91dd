package cn.agentao.agent.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;

/** The system prompt: who the agent is, where it works, and the project's own instructions (AGENTS.md / AGENTAO.md). */
public final class ProjectInstructions {
    static final int MAX_CHARS = 64 * 1024;

    private ProjectInstructions() {}

    public static String systemPrompt(Path cwd, java.util.List<Path> extraRoots) {
        StringBuilder sb = new StringBuilder();
        sb.append("You are a coding agent working in the user's project through their editor. ")
                .append("Use the tools to read, search and change files and to run commands; prefer small, verifiable steps. ")
                .append("Paths are relative to the workspace root unless absolute. Keep answers concise and in Markdown.\n\n")
                .append("Workspace root: ").append(cwd).append('\n');
        if (!extraRoots.isEmpty()) sb.append("Additional workspace roots: ").append(extraRoots).append('\n');
        sb.append("Platform: ").append(System.getProperty("os.name")).append("; today: ").append(LocalDate.now()).append('\n');
        for (String name : ProjectFiles.INSTRUCTIONS) {
            Path f = cwd.resolve(name);
            if (!Files.isRegularFile(f) || !ProjectFiles.readable(f, cwd)) continue; // a link outside: see ProjectFiles
            try {
                String text = Files.readString(f);
                if (text.length() > MAX_CHARS) text = text.substring(0, MAX_CHARS) + "\n… (truncated)";
                sb.append("\n# Project instructions (").append(name).append(")\n\n").append(text).append('\n');
            } catch (IOException e) {
                org.slf4j.LoggerFactory.getLogger(ProjectInstructions.class).warn("cannot read {}: {}", f, e.toString());
            }
        }
        return sb.toString();
    }
}
