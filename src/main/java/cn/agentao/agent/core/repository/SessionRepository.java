package cn.agentao.agent.core.repository;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where sessions are kept: each a header (id, working directory, creation time, extra fields) and an ordered
 * log of records ({@code {"seq":N,"ts":...,"type":...,...payload}}) that only ever grows. The engine decides
 * what records mean ({@code core.record}); a repository stores any type and returns unknown ones unchanged.
 * The file store ({@code store.SessionStore}) is the first implementation; {@code SessionRepositoryContract}
 * (tests) is the behaviour every implementation must show.
 *
 * <p>Damage never spreads: a record that cannot be read is skipped with a warning, and a session whose header
 * cannot be read affects only itself (it is still listed, with the reason). Failures are the domain exceptions
 * of this package ({@link SessionStoreException} and its subclasses), never a protocol's errors; a store that cannot
 * be used at all (a wrong address, a server that cannot be reached) throws {@link StoreUnavailableException}.
 */
public interface SessionRepository {
    /**
     * Creates a session and leases it. Its header is stored (all or nothing) before this returns.
     *
     * @param cwd         the session's working directory (stored absolute)
     * @param headerExtra extra header fields (nullable); the header's own field names are reserved
     * @throws SessionExistsException if a session with this id is already stored
     * @throws IllegalArgumentException if the id is not one the repository can hold
     */
    SessionLease create(String sessionId, Path cwd, ObjectNode headerExtra);

    /**
     * Leases a stored session for appending (what reopening a conversation does).
     *
     * @throws SessionBusyException     if another holder's lease is in force
     * @throws SessionNotFoundException if there is no such session
     * @throws SessionCorruptException  if its header cannot be read, or it is of a newer format version
     */
    SessionLease lease(String sessionId);

    /**
     * Reads a session's records in order, handing each to {@code each} as it is read, so that a long session
     * is never held in memory twice (a reader that keeps nothing needs memory for one record at a time).
     * Takes no lease and never waits: a session being written reads as everything appended so far.
     *
     * @return the header and the damage that was skipped
     * @throws SessionNotFoundException if there is no such session
     * @throws SessionCorruptException  if its header cannot be read, or it is of a newer format version
     */
    SessionHeading scan(String sessionId, Consumer<ObjectNode> each);

    /** A whole session in memory ({@link #scan} collected): for transcripts and tests. */
    default StoredSession read(String sessionId) {
        List<ObjectNode> records = new ArrayList<>();
        SessionHeading heading = scan(sessionId, records::add);
        return new StoredSession(sessionId, heading.header(), records, heading.warnings());
    }

    /**
     * Lists sessions, most recently updated first (ties by id). Sessions that cannot be read are listed too,
     * with {@link SessionSummary#problem()} saying why.
     *
     * @param cwdFilter only sessions created in this directory (nullable: all)
     * @param cursor    null for the first page, else the previous page's {@link Page#nextCursor()}; a page
     *                  starts strictly after the previous page's last session, so sessions created meanwhile
     *                  neither shift nor repeat later pages
     * @throws IllegalArgumentException for a cursor this repository did not give out, or a page size below 1
     */
    Page<SessionSummary> list(Path cwdFilter, String cursor, int pageSize);

    /** The most recently updated readable session created in {@code cwd}. */
    Optional<String> latestFor(Path cwd);

    /**
     * The session whose id is {@code idOrPrefix}, or else the only one whose id starts with it.
     *
     * @throws SessionNotFoundException    if none matches
     * @throws AmbiguousSessionIdException if several match
     */
    String resolvePrefix(String idOrPrefix);

    boolean exists(String sessionId);

    /** Whether a lease on the session is in force, held here or by another process. */
    boolean isLive(String sessionId);

    /**
     * Deletes a session.
     *
     * @return false if there was no such session
     * @throws SessionBusyException if it is leased
     */
    boolean delete(String sessionId);

    /**
     * Deletes the sessions {@code rule} selects. Leased sessions and sessions that cannot be read (e.g. of a
     * newer format version) are never pruned: delete those explicitly.
     */
    PruneResult prune(PruneRule rule);

    /** What {@link #prune} would do now, without deleting anything. */
    PruneResult planPrune(PruneRule rule);

    /** Writes the session as JSON Lines (its header, then one record a line): the file store copies its log byte for byte. */
    void exportLog(String sessionId, OutputStream out) throws IOException;

    /**
     * Whether several agent processes (instances behind one address) serve sessions from this repository at once.
     * The core then leases a session for each turn (and each write outside one) and releases it afterwards, so any
     * instance can continue any session; otherwise it holds the lease for as long as the session is open.
     */
    default boolean shared() { return false; }

    /**
     * Where a session's checkpoints are kept ({@link CheckpointStore}: what {@code /undo} restores), outside every
     * workspace; deleting or pruning the session removes them. Empty when this repository keeps none.
     */
    default Optional<Path> checkpointDirectory(String sessionId) { return Optional.empty(); }

    /** Where the sessions are, for messages to the user (a directory, a database name). */
    String location();

    /** What a user can do when the repository cannot be used (e.g. which option chooses another place). */
    String relocateHint();
}
