package cn.agentao.agent.door.terminal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Where the chat keeps its input history: {@code $XDG_STATE_HOME/agent/history}, else
 * {@code ~/.local/state/agent/history} ({@code ~}: {@code $HOME}, as for everything else). What was typed may hold
 * secrets: the file is readable and writable by the user only.
 */
final class History {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private History() {}

    /** The history file ({@code AgentConfig.Terminal.historyFile}), created owner-only before JLine appends to it (JLine would create it as the umask says), or made so. */
    static Path privateFile(Path file) {
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
