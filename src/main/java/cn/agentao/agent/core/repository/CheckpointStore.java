package cn.agentao.agent.core.repository;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The shadow store of one session's checkpoints (what {@code /undo} restores), in a directory outside every
 * workspace and every project's git: {@code checkpoints.jsonl}, one JSON object a line, only ever appended, and
 * {@code blobs/<sha-256>}, file contents stored by their hash, so a content kept by many turns or files is on disk
 * once. The repository says where it is ({@link SessionRepository#checkpointDirectory}) and removes it with the
 * session. Private to the user (directories 0700, files 0600) where the file system has POSIX modes.
 */
public final class CheckpointStore {
    private static final Logger log = LoggerFactory.getLogger(CheckpointStore.class);
    static final String LOG = "checkpoints.jsonl";
    static final String BLOBS = "blobs";
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private final Path dir;

    public CheckpointStore(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    public Path directory() { return dir; }

    /** The SHA-256 of {@code content}, in hex: what a blob is named by. */
    public static String hash(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
        }
    }

    /** Keeps {@code content} (unless a blob with its hash is there already) and returns its hash. */
    public String put(byte[] content) throws IOException {
        String hash = hash(content);
        Path blob = dir.resolve(BLOBS).resolve(hash);
        if (Files.exists(blob)) return hash;
        createDirectories(blob.getParent());
        Path tmp = blob.resolveSibling("." + hash + "." + UUID.randomUUID() + ".tmp");
        try {
            Files.write(tmp, content);
            Files.move(tmp, blob, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return hash;
    }

    /** The content kept under {@code hash}; {@link NoSuchFileException} when it is not (or no longer) there. */
    public byte[] get(String hash) throws IOException {
        if (!hash.matches("[0-9a-f]{64}")) throw new NoSuchFileException(hash);
        return Files.readAllBytes(dir.resolve(BLOBS).resolve(hash));
    }

    /** Appends one line to the log (created on first use). */
    public void append(ObjectNode line) throws IOException {
        createDirectories(dir);
        byte[] bytes = (Json.mapper().writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = Files.newOutputStream(dir.resolve(LOG), StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            out.write(bytes);
        }
    }

    /** The log's lines in order; none when nothing was recorded. A line that cannot be read is skipped with a warning. */
    public List<ObjectNode> read() throws IOException {
        List<ObjectNode> out = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(dir.resolve(LOG), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return out;
        }
        for (String line : lines) {
            if (line.isBlank()) continue;
            try {
                JsonNode node = Json.mapper().readTree(line);
                if (node instanceof ObjectNode o) out.add(o);
            } catch (IOException e) { // a line cut by a crash: the rest still counts
                log.warn("checkpoints in {}: skipping an unreadable line", dir);
            }
        }
        return out;
    }

    /** Removes a session's shadow store (what deleting the session does); false when there was none. */
    public static boolean delete(Path dir) throws IOException {
        if (!Files.exists(dir)) return false;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
        return true;
    }

    private static void createDirectories(Path d) throws IOException {
        if (Files.isDirectory(d)) return;
        FileAttribute<?>[] attrs = POSIX
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
                : new FileAttribute<?>[0];
        Files.createDirectories(d, attrs);
    }
}
