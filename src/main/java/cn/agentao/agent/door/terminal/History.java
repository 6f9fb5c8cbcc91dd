package cn.agentao.agent.door.terminal;

import cn.agentao.agent.util.UserHome;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;

/**
 * Where the chat keeps its input history: {@code $XDG_STATE_HOME/agent/history}, else
 * {@code ~/.local/state/agent/history} ({@code ~}: {@code $HOME}, as for everything else). What was typed may hold
 * secrets: the file is readable and writable by the user only.
 */
final class History {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private History() {}

    static Path file(Map<String, String> env) {
        String state = env.get("XDG_STATE_HOME");
        Path base = state != null && !state.isBlank() && Path.of(state).isAbsolute() ? Path.of(state)
                : UserHome.from(env).resolve(".local").resolve("state");
        return base.resolve("agent").resolve("history");
    }

    /** {@link #file}, created owner-only before JLine appends to it (JLine would create it as the umask says), or made so. */
    static Path privateFile(Map<String, String> env) {
        Path file = file(env);
        try {
            Files.createDirectories(file.getParent());
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (FileAlreadyExistsException e) {
                Files.setPosixFilePermissions(file, OWNER_ONLY);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // not POSIX, or not writable: JLine makes of it what it can (a history that is not kept)
        }
        return file;
    }
}
