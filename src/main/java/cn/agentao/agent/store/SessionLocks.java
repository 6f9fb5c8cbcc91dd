package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.SessionBusyException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The OS file locks that mark a session live, shared by every {@link SessionStore} of this JVM.
 *
 * <p>Locks are {@code fcntl} record locks, which the OS drops when the process dies (so a killed agent never
 * leaves a session stuck), but which have a trap: closing <em>any</em> descriptor of the file in the process
 * drops the process's lock on it. So within this JVM a lock file is only ever opened here, under this class's
 * monitor, and never while this JVM holds its lock: a held lock is answered from {@link #held} without touching
 * the file. {@code held} is keyed by the file's identity (device and inode), so two paths to one file (symlinked
 * directories) are still one lock.
 */
final class SessionLocks {
    private static final int MAX_ATTEMPTS = 3;
    private static final Map<Object, Held> held = new HashMap<>();

    private SessionLocks() {}

    /** A lock this JVM holds; {@link #close} releases it. */
    static final class Held implements AutoCloseable {
        private final Object key;
        private final Path path;
        private final FileChannel channel;
        private final FileLock lock;
        private boolean released;

        private Held(Object key, Path path, FileChannel channel, FileLock lock) {
            this.key = key;
            this.path = path;
            this.channel = channel;
            this.lock = lock;
        }

        Path path() {
            return path;
        }

        @Override
        public void close() throws IOException {
            synchronized (SessionLocks.class) {
                if (released) return;
                released = true;
                held.remove(key);
                try {
                    lock.release();
                } finally {
                    channel.close();
                }
            }
        }
    }

    /**
     * Takes the exclusive lock of {@code lockFile} (creating the file), or throws {@link SessionBusyException}
     * if this or another process holds it.
     */
    static synchronized Held acquire(Path lockFile, String sessionId) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                Files.createFile(lockFile, SessionFiles.privateFile());
            } catch (FileAlreadyExistsException ignored) {
                // the usual case: the lock file stays for the session's lifetime
            }
            Object key = identity(lockFile);
            if (key != null) {
                if (held.containsKey(key)) throw new SessionBusyException(sessionId);
                FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
                FileLock lock = tryLock(channel);
                if (lock == null) {
                    channel.close();
                    throw new SessionBusyException(sessionId);
                }
                if (key.equals(identity(lockFile))) {
                    Held h = new Held(key, lockFile, channel, lock);
                    held.put(key, h);
                    return h;
                }
                // A deleter unlinks the lock file while holding its lock: a lock on a file that has since been
                // unlinked or replaced guards nothing, so let go and lock the current file instead.
                lock.release();
                channel.close();
            }
            if (attempt == MAX_ATTEMPTS) throw new SessionBusyException(sessionId);
        }
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // locked through a channel this class does not know of: busy all the same
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Whether any process (this one included) holds the lock of {@code lockFile}. */
    static synchronized boolean isLocked(Path lockFile) throws IOException {
        Object key = identity(lockFile);
        if (key == null) return false;
        if (held.containsKey(key)) return true;
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
            FileLock probe = channel.tryLock();
            if (probe == null) return true;
            probe.release();
            return false;
        } catch (OverlappingFileLockException e) {
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /** The file's identity (device and inode where the OS has them), or null if it does not exist. */
    private static Object identity(Path file) throws IOException {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            return Objects.requireNonNullElse(attributes.fileKey(), file.toRealPath());
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
