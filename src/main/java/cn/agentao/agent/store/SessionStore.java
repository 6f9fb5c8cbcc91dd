package cn.agentao.agent.store;

import cn.agentao.agent.util.IoErrors;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A directory of sessions, each an append-only JSON Lines log ({@code <id>.jsonl}, see
 * {@code sessions-store/README.md}). The log is written as the conversation goes, one record per line, so a
 * crash loses at most the record being written. Several agent processes may share one directory: a session
 * open for writing in one is refused by the others ({@link SessionBusyException}), and a damaged session only
 * ever affects itself.
 */
public final class SessionStore {
    private static final Logger log = LoggerFactory.getLogger(SessionStore.class);

    /** Environment variable that overrides {@link #defaultDirectory}. */
    public static final String DIR_ENV = "AGENT_SESSIONS_DIR";
    /** What a user can do about a store directory that cannot be used. */
    public static final String RELOCATE_HINT = "choose a writable directory with --sessions-dir DIR or " + DIR_ENV + "=DIR";

    private final SessionFiles files;
    private final SyncPolicy sync;
    private final Clock clock;
    private final SummaryIndex index;

    /** A store whose appends are forced to the device ({@link SyncPolicy#FSYNC}). */
    public SessionStore(Path dir) {
        this(dir, SyncPolicy.FSYNC);
    }

    public SessionStore(Path dir, SyncPolicy sync) {
        this(dir, sync, Clock.systemUTC());
    }

    /** {@code clock} stamps records' {@code ts} and new sessions' {@code createdAt}. The directory is created on first write. */
    public SessionStore(Path dir, SyncPolicy sync, Clock clock) {
        this.files = new SessionFiles(dir);
        this.sync = Objects.requireNonNull(sync, "sync");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.index = new SummaryIndex(files);
    }

    /**
     * Where sessions live unless told otherwise: {@code $AGENT_SESSIONS_DIR} if set, else
     * {@code $XDG_DATA_HOME/agent/sessions} (if that is an absolute path), else {@code ~/.local/share/agent/sessions}.
     */
    public static Path defaultDirectory(Map<String, String> env) {
        String override = env.get(DIR_ENV);
        if (override != null && !override.isBlank()) return Path.of(override).toAbsolutePath();
        String dataHome = env.get("XDG_DATA_HOME");
        if (dataHome != null && !dataHome.isBlank() && Path.of(dataHome).isAbsolute()) {
            return Path.of(dataHome, "agent", "sessions");
        }
        return cn.agentao.agent.util.UserHome.from(env).resolve(".local/share/agent/sessions");
    }

    public Path directory() {
        return files.dir();
    }

    /** The log file of a session (whether or not it exists), e.g. to show to a user. */
    public Path logFile(String sessionId) {
        return files.log(SessionFiles.requireValidId(sessionId));
    }

    /**
     * Creates a session and opens it for writing. Its header is on disk (atomically: all or nothing) before
     * this returns.
     *
     * @param cwd         the session's working directory (stored absolute)
     * @param headerExtra extra header fields (nullable); the header's own field names are reserved
     * @throws SessionExistsException if a session with this id is already stored
     */
    public SessionWriter create(String sessionId, Path cwd, ObjectNode headerExtra) {
        SessionFiles.requireValidId(sessionId);
        Objects.requireNonNull(cwd, "cwd");
        Path logFile = files.log(sessionId);
        if (Files.exists(logFile)) throw new SessionExistsException(sessionId);
        SessionLocks.Held lock = lock(sessionId);
        try {
            if (Files.exists(logFile)) throw new SessionExistsException(sessionId);
            SessionHeader header = SessionHeader.create(sessionId, cwd.toAbsolutePath().normalize(), clock.instant(),
                    headerExtra);
            byte[] line = SessionLogCodec.encodeLine(header.json());
            DurableFiles.writeAtomically(logFile, line, sync == SyncPolicy.FSYNC);
            FileChannel channel = FileChannel.open(logFile, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            return new SessionWriter(sessionId, channel, lock, sync, clock, 0, line.length);
        } catch (IOException | RuntimeException e) {
            deleteLockFileIfOrphaned(sessionId);
            closeQuietly(lock);
            if (e instanceof RuntimeException runtime) throw runtime;
            throw new SessionStoreException("cannot create session " + sessionId + " in " + files.dir() + ": " + IoErrors.describe((IOException) e), e);
        }
    }

    /**
     * Opens a stored session for appending. A torn last line (a write that was interrupted) is cut off first,
     * so that the next record starts on a line of its own.
     *
     * @throws SessionBusyException      if the session is open for writing elsewhere
     * @throws SessionNotFoundException  if there is no such session
     * @throws SessionCorruptException   if its header cannot be read, or it is of a newer format version
     */
    public SessionWriter openForAppend(String sessionId) {
        SessionFiles.requireValidId(sessionId);
        Path logFile = files.log(sessionId);
        if (!Files.exists(logFile)) throw SessionNotFoundException.of(sessionId);
        SessionLocks.Held lock = lock(sessionId);
        FileChannel channel = null;
        try {
            byte[] bytes = readLog(sessionId);
            SessionLogCodec.ParsedLog parsed = SessionLogCodec.parse(sessionId, bytes);
            parsed.warnings().forEach(w -> log.warn("session {}: {}", sessionId, w));
            channel = FileChannel.open(logFile, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            if (parsed.completeLength() < bytes.length) {
                log.warn("session {}: dropping the {} bytes of an interrupted write at the end of {}", sessionId,
                        bytes.length - parsed.completeLength(), logFile);
                channel.truncate(parsed.completeLength());
                channel.force(false);
            }
            return new SessionWriter(sessionId, channel, lock, sync, clock, parsed.lastSeq(), parsed.completeLength());
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            closeQuietly(lock);
            if (e instanceof RuntimeException runtime) throw runtime;
            throw new SessionStoreException("cannot open session " + sessionId + " for writing: " + IoErrors.describe((IOException) e), e);
        }
    }

    /**
     * Reads a whole session. Damaged lines are skipped and described in {@link StoredSession#warnings()} (and
     * logged); only a session that has no readable header at all is refused.
     *
     * @throws SessionNotFoundException if there is no such session
     * @throws SessionCorruptException  if its header cannot be read, or it is of a newer format version
     */
    public StoredSession read(String sessionId) {
        SessionFiles.requireValidId(sessionId);
        SessionLogCodec.ParsedLog parsed = SessionLogCodec.parse(sessionId, readLog(sessionId));
        parsed.warnings().forEach(w -> log.warn("session {}: {}", sessionId, w));
        return new StoredSession(sessionId, parsed.header(), parsed.records(), parsed.warnings());
    }

    /** Copies a session's log, byte for byte, to {@code out}. */
    public void exportLog(String sessionId, OutputStream out) throws IOException {
        try {
            Files.copy(logFile(sessionId), out);
        } catch (NoSuchFileException e) {
            throw SessionNotFoundException.of(sessionId);
        }
    }

    /**
     * Lists sessions, most recently updated first. Sessions that cannot be read are listed too, with
     * {@link SessionSummary#problem()} saying why.
     *
     * @param cwdFilter only sessions created in this directory (nullable: all)
     * @param cursor    null for the first page, else the previous page's {@link Page#nextCursor()}
     */
    public Page<SessionSummary> list(Path cwdFilter, String cursor, int pageSize) {
        if (pageSize < 1) throw new IllegalArgumentException("page size must be >= 1: " + pageSize);
        ListCursor after = cursor == null ? null : ListCursor.decode(cursor);
        Path cwd = cwdFilter == null ? null : cwdFilter.toAbsolutePath().normalize();
        List<SessionSummary> matching = index.summaries().stream()
                .filter(s -> cwd == null || cwd.equals(s.cwd()))
                .filter(s -> after == null || after.precedes(s))
                .sorted(ListCursor.ORDER)
                .toList();
        List<SessionSummary> page = matching.subList(0, Math.min(pageSize, matching.size()));
        String next = matching.size() > pageSize ? ListCursor.after(page.getLast()).encode() : null;
        return new Page<>(page, next);
    }

    /** The most recently updated readable session created in {@code cwd}. */
    public Optional<String> latestFor(Path cwd) {
        Path dir = cwd.toAbsolutePath().normalize();
        return index.summaries().stream()
                .filter(s -> s.readable() && dir.equals(s.cwd()))
                .min(ListCursor.ORDER)
                .map(SessionSummary::sessionId);
    }

    /**
     * The session whose id is {@code idOrPrefix}, or else the only one whose id starts with it.
     *
     * @throws SessionNotFoundException    if none matches
     * @throws AmbiguousSessionIdException if several match
     */
    public String resolvePrefix(String idOrPrefix) {
        if (idOrPrefix == null || idOrPrefix.isBlank()) throw new IllegalArgumentException("empty session id");
        List<String> ids = files.ids();
        if (ids.contains(idOrPrefix)) return idOrPrefix;
        List<String> matches = ids.stream().filter(id -> id.startsWith(idOrPrefix)).sorted().toList();
        return switch (matches.size()) {
            case 0 -> throw new SessionNotFoundException(idOrPrefix, "no stored session id starts with '" + idOrPrefix + "'");
            case 1 -> matches.getFirst();
            default -> throw new AmbiguousSessionIdException(idOrPrefix, matches);
        };
    }

    public boolean exists(String sessionId) {
        return Files.exists(files.log(SessionFiles.requireValidId(sessionId)));
    }

    /** Whether the session is open for writing, in this process or another. */
    public boolean isLive(String sessionId) {
        try {
            return SessionLocks.isLocked(files.lock(SessionFiles.requireValidId(sessionId)));
        } catch (IOException e) {
            throw new SessionStoreException("cannot check whether session " + sessionId + " is in use: " + IoErrors.describe(e), e);
        }
    }

    /**
     * Deletes a session (its log and lock file).
     *
     * @return false if there was no such session
     * @throws SessionBusyException if it is open for writing
     */
    public boolean delete(String sessionId) {
        SessionFiles.requireValidId(sessionId);
        if (!Files.exists(files.log(sessionId))) return false;
        try (SessionLocks.Held lock = lock(sessionId)) {
            boolean existed = Files.deleteIfExists(files.log(sessionId));
            // unlinked while still locked, so that nobody can lock it in between (see SessionLocks.acquire)
            Files.deleteIfExists(lock.path());
            index.forget(sessionId);
            if (sync == SyncPolicy.FSYNC) DurableFiles.forceDirectory(files.dir());
            return existed;
        } catch (IOException e) {
            throw new SessionStoreException("cannot delete session " + sessionId + ": " + IoErrors.describe(e), e);
        }
    }

    /**
     * Deletes the sessions {@code rule} selects. Sessions that are open for writing and sessions that cannot be
     * read (e.g. of a newer format version) are never pruned: delete those explicitly.
     */
    public PruneResult prune(PruneRule rule) {
        PruneResult plan = planPrune(rule);
        List<SessionSummary> removed = new ArrayList<>();
        List<SessionSummary> skipped = new ArrayList<>(plan.skippedLive());
        for (SessionSummary s : plan.removed()) {
            try {
                if (delete(s.sessionId())) removed.add(s);
            } catch (SessionBusyException e) {
                skipped.add(s); // went live since the plan was made
            }
        }
        log.info("pruned {} sessions from {} ({} live ones left alone)", removed.size(), files.dir(), skipped.size());
        return new PruneResult(removed, skipped);
    }

    /** What {@link #prune} would do now, without deleting anything. */
    public PruneResult planPrune(PruneRule rule) {
        List<SessionSummary> newestFirst = index.summaries().stream()
                .filter(SessionSummary::readable)
                .sorted(ListCursor.ORDER)
                .toList();
        List<SessionSummary> selected = switch (rule) {
            case PruneRule.OlderThan(Duration age) -> {
                Instant cutoff = clock.instant().minus(age);
                yield newestFirst.stream().filter(s -> s.updatedAt().isBefore(cutoff)).toList();
            }
            case PruneRule.KeepNewest(int count) -> newestFirst.subList(Math.min(count, newestFirst.size()), newestFirst.size());
        };
        List<SessionSummary> removable = new ArrayList<>();
        List<SessionSummary> live = new ArrayList<>();
        for (SessionSummary s : selected) {
            (isLive(s.sessionId()) ? live : removable).add(s);
        }
        return new PruneResult(removable, live);
    }

    private SessionLocks.Held lock(String sessionId) {
        try {
            files.createDirectory();
            return SessionLocks.acquire(files.lock(sessionId), sessionId);
        } catch (IOException e) {
            throw new SessionStoreException("cannot use the session store " + files.dir() + ": " + IoErrors.describe(e), e);
        }
    }

    private byte[] readLog(String sessionId) {
        try {
            return Files.readAllBytes(files.log(sessionId));
        } catch (NoSuchFileException e) {
            throw SessionNotFoundException.of(sessionId);
        } catch (IOException e) {
            throw new SessionStoreException("cannot read session " + sessionId + ": " + IoErrors.describe(e), e);
        }
    }

    /** After a failed create, removes the lock file (still locked by us) unless a log came to exist. */
    private void deleteLockFileIfOrphaned(String sessionId) {
        try {
            if (!Files.exists(files.log(sessionId))) Files.deleteIfExists(files.lock(sessionId));
        } catch (IOException e) {
            log.debug("cannot remove lock file of session {}: {}", sessionId, e.toString());
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) return;
        try {
            closeable.close();
        } catch (Exception e) {
            log.debug("close failed: {}", e.toString());
        }
    }
}
