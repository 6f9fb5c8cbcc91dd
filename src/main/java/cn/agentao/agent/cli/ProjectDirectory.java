package cn.agentao.agent.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/** The project a {@code -C DIR} command works on (default: the current directory), checked once for every such command. */
final class ProjectDirectory {
    private ProjectDirectory() {}

    /**
     * {@code dir} (null: the current directory) as an absolute, normal path; null, after one line on {@code err}
     * naming {@code command}, when it is not a directory.
     */
    static Path resolve(Path dir, PrintWriter err, String command) {
        Path project = (dir == null ? Path.of("") : dir).toAbsolutePath().normalize();
        if (Files.isDirectory(project)) return project;
        err.println(command + ": " + project + " is not a directory");
        return null;
    }
}
