package cn.agentao.agent.core;

import cn.agentao.agent.permission.Workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The project files the agent reads on its own, without a tool call and so without a permission question:
 * {@code AGENTS.md}, {@code AGENTAO.md}, {@code CLAUDE.md} and {@code .agent/commands/*.md}. Each is read only when it resolves (links
 * followed) inside the session's workspace; one that is a link to a file outside (say {@code ~/.ssh/id_rsa}) is
 * left unread, and the session is told why.
 */
final class ProjectFiles {
    static final String[] INSTRUCTIONS = {"AGENTS.md", "AGENTAO.md", "CLAUDE.md"};

    private ProjectFiles() {}

    /** Whether the agent may read this project file by itself. */
    static boolean readable(Path file, Path cwd) {
        return Workspace.of(cwd).contains(file);
    }

    static Path commandsDir(Path cwd) {
        return cn.agentao.agent.config.AgentConfig.projectDir(cwd).resolve("commands");
    }

    /** One sentence per project file that was not read because it resolves outside the workspace. */
    static List<String> outsideWorkspace(Path cwd) {
        List<Path> candidates = new ArrayList<>();
        for (String name : INSTRUCTIONS) candidates.add(cwd.resolve(name));
        Path commands = commandsDir(cwd);
        if (Files.isDirectory(commands)) {
            try (Stream<Path> files = Files.list(commands)) {
                files.filter(f -> f.getFileName().toString().endsWith(".md")).sorted().forEach(candidates::add);
            } catch (IOException e) {
                // the command loader reports it
            }
        }
        List<String> out = new ArrayList<>();
        for (Path f : candidates) {
            if (Files.exists(f) && !readable(f, cwd)) {
                out.add(cwd.relativize(f) + " was not read: it is a link to a file outside the workspace ("
                        + Workspace.realPath(f).map(Path::toString).orElse("unresolvable") + "), and the agent reads "
                        + "project files only from inside it.");
            }
        }
        return out;
    }
}
