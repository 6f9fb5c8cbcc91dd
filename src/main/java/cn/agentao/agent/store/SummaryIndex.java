package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.Timestamps;

import cn.agentao.agent.core.repository.SessionHeader;

import cn.agentao.agent.core.repository.SessionCorruptException;

import cn.agentao.agent.core.repository.SessionSummary;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.IoErrors;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The summaries of all sessions, kept in {@code index.json} as a cache so that listing does not re-read every
 * log. The logs are the truth: every lookup checks each log's size, modification time and identity, and a log
 * that changed is re-read (only its new tail when it merely grew, which is what appending does). A missing,
 * unreadable or foreign-version index is simply rebuilt; concurrent writers of the index just overwrite each
 * other's (equally valid) cache.
 */
final class SummaryIndex {
    private static final Logger log = LoggerFactory.getLogger(SummaryIndex.class);
    private static final String FORMAT = "agent-session-index";
    private static final int VERSION = 1;

    /**
     * A summary and the state of the log it was derived from.
     *
     * @param scannedBytes the log's length up to the last complete line read (to resume from), 0 if unreadable
     * @param scannedLines how many lines (header included) those bytes hold
     */
    private record Entry(SessionSummary summary, String fileKey, long size, long modifiedMillis,
                         long scannedBytes, long scannedLines) {}

    private final SessionFiles files;
    private final Map<String, Entry> entries = new HashMap<>();
    private boolean loaded;

    SummaryIndex(SessionFiles files) {
        this.files = files;
    }

    /** The summaries of all sessions now in the directory, unordered. */
    synchronized List<SessionSummary> summaries() {
        if (!loaded) {
            load();
            loaded = true;
        }
        boolean changed = false;
        List<String> ids = files.ids();
        List<SessionSummary> result = new ArrayList<>(ids.size());
        for (String id : ids) {
            Entry cached = entries.get(id);
            Entry current;
            try {
                current = refresh(id, cached);
            } catch (NoSuchFileException e) {
                continue; // deleted since the directory was listed
            } catch (IOException e) {
                // reported for this session alone, and not cached: the cause (permissions, say) may go away
                String problem = "session " + id + " cannot be read: " + IoErrors.describe(e);
                log.warn("{}", problem);
                result.add(new SessionSummary(id, null, null, null, Instant.EPOCH, 0, problem));
                continue;
            }
            if (current != cached) {
                entries.put(id, current);
                changed = true;
            }
            result.add(current.summary());
        }
        changed |= entries.keySet().retainAll(ids);
        if (changed) save();
        return result;
    }

    /** Drops a deleted session's entry. */
    synchronized void forget(String sessionId) {
        entries.remove(sessionId);
    }

    /** The cached entry if the log has not changed since, otherwise a new one. */
    private Entry refresh(String id, Entry cached) throws IOException {
        Path logFile = files.log(id);
        BasicFileAttributes attributes = Files.readAttributes(logFile, BasicFileAttributes.class);
        String fileKey = Objects.toString(attributes.fileKey(), null);
        long size = attributes.size();
        long modified = attributes.lastModifiedTime().toMillis();
        if (cached != null && cached.size() == size && cached.modifiedMillis() == modified
                && Objects.equals(cached.fileKey(), fileKey)) {
            return cached;
        }
        boolean grew = cached != null && cached.summary().readable() && cached.scannedBytes() > 0
                && Objects.equals(cached.fileKey(), fileKey) && size >= cached.scannedBytes();
        return grew ? scanTail(logFile, cached, fileKey, size, modified) : scanWhole(id, logFile, fileKey, size, modified);
    }

    private Entry scanWhole(String id, Path logFile, String fileKey, long size, long modified) throws IOException {
        byte[] bytes = Files.readAllBytes(logFile);
        try {
            List<ObjectNode> records = new ArrayList<>();
            SessionLogCodec.Scan scan = SessionLogCodec.scan(id, bytes, records::add);
            SessionHeader header = scan.header();
            Instant createdAt = header.createdAt() != null ? header.createdAt() : Instant.ofEpochMilli(modified);
            SummaryBuilder summary = new SummaryBuilder(id, header.cwd(), createdAt, null, createdAt, 0);
            records.forEach(summary::add);
            return new Entry(summary.build(), fileKey, size, modified, scan.completeLength(), scan.completeLines());
        } catch (SessionCorruptException e) {
            return new Entry(unreadable(id, bytes, modified, e.getMessage()), fileKey, size, modified, 0, 0);
        }
    }

    private Entry scanTail(Path logFile, Entry cached, String fileKey, long size, long modified) throws IOException {
        byte[] tail = new byte[Math.toIntExact(size - cached.scannedBytes())];
        try (FileChannel channel = FileChannel.open(logFile, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.wrap(tail);
            long position = cached.scannedBytes();
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer, position);
                if (n < 0) break; // shrank since the stat: read what is there
                position += n;
            }
            SessionSummary before = cached.summary();
            SummaryBuilder summary = new SummaryBuilder(before.sessionId(), before.cwd(), before.createdAt(),
                    before.title(), before.updatedAt(), before.records());
            long[] lines = {cached.scannedLines()};
            int consumed = SessionLogCodec.scanRecords(tail, 0, buffer.position(), lines[0] + 1,
                    new SessionLogCodec.Visitor() {
                        @Override
                        public void record(long lineNumber, ObjectNode record) {
                            lines[0] = lineNumber;
                            summary.add(record);
                        }

                        @Override
                        public void damaged(long lineNumber, String problem) {
                            lines[0] = lineNumber;
                        }
                    });
            return new Entry(summary.build(), fileKey, size, modified, cached.scannedBytes() + consumed, lines[0]);
        }
    }

    /** The summary of a session whose header cannot be read: whatever the first line still tells. */
    private static SessionSummary unreadable(String id, byte[] bytes, long modified, String problem) {
        Path cwd = null;
        Instant createdAt = null;
        int end = 0;
        while (end < bytes.length && bytes[end] != '\n') end++;
        try {
            JsonNode first = end == 0 ? null : Json.mapper().readTree(bytes, 0, end);
            if (first != null) {
                cwd = SessionHeader.lenientCwd(first);
                createdAt = SessionHeader.lenientCreatedAt(first);
            }
        } catch (IOException ignored) {
            // nothing more to tell
        }
        return new SessionSummary(id, cwd, null, createdAt, Instant.ofEpochMilli(modified), 0, problem);
    }

    private void load() {
        Path file = files.index();
        try {
            JsonNode root = Json.mapper().readTree(Files.readAllBytes(file));
            if (root == null || !FORMAT.equals(root.path("format").asText()) || root.path("version").asInt() != VERSION) {
                log.info("session index {} is not a version {} index; rebuilding it", file, VERSION);
                return;
            }
            for (Map.Entry<String, JsonNode> field : root.path("sessions").properties()) {
                Entry entry = fromJson(field.getKey(), field.getValue());
                if (entry != null) entries.put(field.getKey(), entry);
            }
        } catch (NoSuchFileException e) {
            log.debug("no session index at {}; building it", file);
        } catch (IOException e) {
            log.info("session index {} is unreadable ({}); rebuilding it", file, e.getMessage());
        }
    }

    private void save() {
        ObjectNode sessions = Json.object();
        entries.forEach((id, entry) -> sessions.set(id, toJson(entry)));
        ObjectNode root = Json.object().put("format", FORMAT).put("version", VERSION);
        root.set("sessions", sessions);
        try {
            files.createDirectory();
            DurableFiles.writeAtomically(files.index(), Json.mapper().writeValueAsBytes(root), false);
        } catch (IOException e) {
            log.warn("cannot write session index {} (listing stays correct, only slower): {}", files.index(), e.toString());
        }
    }

    private static ObjectNode toJson(Entry entry) {
        SessionSummary s = entry.summary();
        ObjectNode json = Json.object();
        json.put("cwd", Objects.toString(s.cwd(), null))
                .put("title", s.title())
                .put("createdAt", Objects.toString(s.createdAt(), null))
                .put("updatedAt", s.updatedAt().toString())
                .put("records", s.records())
                .put("problem", s.problem())
                .put("fileKey", entry.fileKey())
                .put("size", entry.size())
                .put("modified", entry.modifiedMillis())
                .put("scannedBytes", entry.scannedBytes())
                .put("scannedLines", entry.scannedLines());
        return json;
    }

    /** An entry read back from the index, or null if it is not usable (then the log is simply re-read). */
    private static Entry fromJson(String id, JsonNode json) {
        Instant updatedAt = Timestamps.parseOrNull(json.path("updatedAt").asText(null));
        if (!SessionFiles.isValidId(id) || updatedAt == null || !json.path("size").canConvertToLong()) return null;
        SessionSummary summary = new SessionSummary(id, SessionHeader.lenientCwd(json), json.path("title").textValue(),
                Timestamps.parseOrNull(json.path("createdAt").asText(null)), updatedAt,
                json.path("records").asLong(), json.path("problem").textValue());
        return new Entry(summary, json.path("fileKey").textValue(), json.path("size").asLong(),
                json.path("modified").asLong(), json.path("scannedBytes").asLong(), json.path("scannedLines").asLong());
    }
}
