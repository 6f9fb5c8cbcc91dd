package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.AmbiguousSessionIdException;
import cn.agentao.agent.core.repository.CheckpointStore;
import cn.agentao.agent.core.repository.Page;
import cn.agentao.agent.core.repository.PruneResult;
import cn.agentao.agent.core.repository.PruneRule;
import cn.agentao.agent.core.repository.SessionBusyException;
import cn.agentao.agent.core.repository.SessionExistsException;
import cn.agentao.agent.core.repository.SessionHeader;
import cn.agentao.agent.core.repository.SessionNotFoundException;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.core.repository.SessionHeading;
import cn.agentao.agent.core.repository.SessionRepository;

import cn.agentao.agent.util.IoErrors;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
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
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A directory of sessions, each an append-only JSON Lines log ({@code <id>.jsonl}, see
 * {@code docs/session-format.md}). The log is written as the conversation goes, one record per line, so a
 * crash loses at most the record being written. Several agent processes may share one directory: a session
 * open for writing in one is refused by the others ({@link SessionBusyException}), and a damaged session only
 * ever affects itself. This is the first {@link SessionRepository}: a lease is the OS lock of {@code <id>.lock},
 * which ends when the writer closes or the process dies.
 */
public final class SessionStore implements SessionRepository {
    private static final Logger log = LoggerFactory.getLogger(SessionStore.class);

    /** Environment variable that overrides the default directory ({@link cn.agentao.agent.config.StoreSettings#defaultDirectory}). */
    public static final String DIR_ENV = cn.agentao.agent.config.StoreSettings.DIR_ENV;
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


    public Path directory() {
        return files.dir();
    }

    @Override
    public String location() {
        return files.dir().toString();
    }

    @Override
    public String relocateHint() {
        return RELOCATE_HINT;
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
    @Override
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
    @Override
    public SessionWriter lease(String sessionId) {
        SessionFiles.requireValidId(sessionId);
        Path logFile = files.log(sessionId);
        if (!Files.exists(logFile)) throw SessionNotFoundException.of(sessionId);
        SessionLocks.Held lock = lock(sessionId);
        FileChannel channel = null;
        try {
            SessionLogCodec.Scan scan = scanLog(sessionId, record -> { });
            channel = FileChannel.open(logFile, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            long size = channel.size();
            if (scan.completeLength() < size) {
                log.warn("session {}: dropping the {} bytes of an interrupted write at the end of {}", sessionId,
                        size - scan.completeLength(), logFile);
                channel.truncate(scan.completeLength());
                channel.force(false);
            }
            return new SessionWriter(sessionId, channel, lock, sync, clock, scan.lastSeq(), scan.completeLength());
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            closeQuietly(lock);
            if (e instanceof RuntimeException runtime) throw runtime;
            throw new SessionStoreException("cannot open session " + sessionId + " for writing: " + IoErrors.describe((IOException) e), e);
        }
    }

    /**
     * Reads a session record by record, as it is read from the log. Damaged lines are skipped and described in
     * the warnings (and logged); only a session that has no readable header at all is refused.
     */
    @Override
    public SessionHeading scan(String sessionId, Consumer<ObjectNode> each) {
        SessionLogCodec.Scan scan = scanLog(sessionId, each);
        return new SessionHeading(scan.header(), scan.warnings());
    }

    /** Copies a session's log, byte for byte, to {@code out}. */
    @Override
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
    @Override
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
    @Override
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
    @Override
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

    @Override
    public boolean exists(String sessionId) {
        return Files.exists(files.log(SessionFiles.requireValidId(sessionId)));
    }

    /** Whether the session is open for writing, in this process or another. */
    @Override
    public boolean isLive(String sessionId) {
        try {
            return SessionLocks.isLocked(files.lock(SessionFiles.requireValidId(sessionId)));
        } catch (IOException e) {
            throw new SessionStoreException("cannot check whether session " + sessionId + " is in use: " + IoErrors.describe(e), e);
        }
    }

    /** {@code checkpoints/<id>} in the store's directory. */
    @Override
    public Optional<Path> checkpointDirectory(String sessionId) {
        return Optional.of(files.dir().resolve("checkpoints").resolve(SessionFiles.requireValidId(sessionId)));
    }

    /**
     * Deletes a session (its log, lock file and checkpoints).
     *
     * @return false if there was no such session
     * @throws SessionBusyException if it is open for writing
     */
    @Override
    public boolean delete(String sessionId) {
        SessionFiles.requireValidId(sessionId);
        if (!Files.exists(files.log(sessionId))) return false;
        try (SessionLocks.Held lock = lock(sessionId)) {
            boolean existed = Files.deleteIfExists(files.log(sessionId));
            CheckpointStore.delete(checkpointDirectory(sessionId).orElseThrow());
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
    @Override
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
    @Override
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

    private SessionLogCodec.Scan scanLog(String sessionId, Consumer<ObjectNode> each) {
        SessionFiles.requireValidId(sessionId);
        try (InputStream in = Files.newInputStream(files.log(sessionId))) {
            SessionLogCodec.Scan scan = SessionLogCodec.scan(sessionId, in, each);
            scan.warnings().forEach(w -> log.warn("session {}: {}", sessionId, w));
            return scan;
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
