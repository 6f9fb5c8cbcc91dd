package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.SessionStoreException;

import cn.agentao.agent.util.IoErrors;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The layout of a store directory: {@code <id>.jsonl} (the log, the truth), {@code <id>.lock} (held while the
 * session is open for writing), {@code index.json} (a cache of summaries) and short-lived {@code .*.tmp-*}
 * files. Files are private to the user (0600, directory 0700) where the file system supports POSIX modes.
 */
public final class SessionFiles {
    static final String LOG_SUFFIX = ".jsonl";
    static final String LOCK_SUFFIX = ".lock";
    static final String INDEX_FILE = "index.json";

    /** Ids become file names: letters, digits, '.', '_' and '-', not starting with '.', at most 128 chars. */
    private static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private final Path dir;

    SessionFiles(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    Path dir() {
        return dir;
    }

    Path log(String sessionId) {
        return dir.resolve(sessionId + LOG_SUFFIX);
    }

    Path lock(String sessionId) {
        return dir.resolve(sessionId + LOCK_SUFFIX);
    }

    Path index() {
        return dir.resolve(INDEX_FILE);
    }

    public static String requireValidId(String sessionId) {
        if (sessionId == null || !VALID_ID.matcher(sessionId).matches()) {
            throw new IllegalArgumentException("invalid session id '" + sessionId + "': use 1-128 letters, digits, "
                    + "'.', '_' or '-', not starting with '.'");
        }
        return sessionId;
    }

    public static boolean isValidId(String sessionId) {
        return VALID_ID.matcher(sessionId).matches();
    }

    /** The ids of all stored sessions (every {@code <id>.jsonl}), unordered; none if the directory is missing. */
    List<String> ids() {
        List<String> ids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*" + LOG_SUFFIX)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                String id = name.substring(0, name.length() - LOG_SUFFIX.length());
                if (isValidId(id)) ids.add(id);
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new SessionStoreException("cannot list the session store " + dir + ": " + IoErrors.describe(e), e);
        }
        return ids;
    }

    void createDirectory() throws IOException {
        if (Files.isDirectory(dir)) return;
        if (POSIX) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectories(dir);
        }
    }

    /** Attributes for new files: owner read/write only where supported. */
    static FileAttribute<?>[] privateFile() {
        return POSIX
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
    }
}
