package cn.agentao.agent.trust;

import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.store.DurableFiles;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The projects the user trusts, kept in the user's configuration ({@code trusted-projects.json} beside
 * {@code config.json}), never in the project:
 * <pre>{"projects": {"/real/path": {"trusted": true, "mcpJson": "sha256:…", "startFiles": {"mcp/start.sh": "sha256:…"},
 *   "decidedAt": "…"}}}</pre>
 * Keyed by the project's real path. {@code trusted} lets the project's {@code .env} choose providers; its
 * {@code .agent/mcp.json} starts only while the file still has the digest the user saw ({@code mcpJson}, null
 * for "no file") and the project's files its servers start from still have theirs ({@code startFiles}): a change
 * to either is asked about again. {@code trusted: false} with a digest records "never
 * for this file". Reads the file on every question (it is small); a broken file trusts nothing.
 */
public final class TrustedProjects {
    private static final Logger log = LoggerFactory.getLogger(TrustedProjects.class);

    /**
     * What the user decided about one project: {@code startFiles} are the digests of the project's files its MCP
     * servers start from ({@link Reviewed#startFiles()}), empty when none was recorded.
     */
    public record Entry(boolean trusted, String mcpJson, Map<String, String> startFiles) {}

    /**
     * A project's file as the user was shown it ({@code .agent/mcp.json}, read by the MCP connector): the digest of
     * its bytes, and the digests of the project's files its servers start from (path relative to the project).
     */
    public interface Reviewed {
        String digest();

        Map<String, String> startFiles();
    }

    private final Path file;

    public TrustedProjects(Path file) {
        this.file = file;
    }

    /** The list in the user's configuration directory {@code configDir}. */
    public static TrustedProjects in(Path configDir) {
        return new TrustedProjects(configDir.resolve(ConfigLocations.TRUSTED_PROJECTS));
    }

    public Path file() { return file; }

    public Optional<Entry> entry(Path project) {
        JsonNode e = readAll().path("projects").path(key(project));
        if (!e.isObject() || !e.path("trusted").isBoolean()) return Optional.empty();
        JsonNode digest = e.get("mcpJson");
        Map<String, String> files = new java.util.TreeMap<>();
        e.path("startFiles").properties().forEach(f -> { if (f.getValue().isTextual()) files.put(f.getKey(), f.getValue().textValue()); });
        return Optional.of(new Entry(e.path("trusted").booleanValue(), digest != null && digest.isTextual() ? digest.textValue() : null, files));
    }

    /** Whether the project's own configuration ({@code .env}) may choose providers and endpoints. */
    public boolean trusted(Path project) {
        return entry(project).map(Entry::trusted).orElse(false);
    }

    /** Whether the user trusted exactly this {@code .agent/mcp.json} and the files its servers start from. */
    public boolean approved(Path project, Reviewed mcp) {
        return entry(project).filter(Entry::trusted)
                .map(e -> mcp.digest().equals(e.mcpJson()) && mcp.startFiles().equals(e.startFiles())).orElse(false);
    }

    /**
     * The start files (relative to the project) that are new, changed or gone since the user trusted this very
     * {@code .agent/mcp.json}; empty when the project or this file is not trusted, or nothing changed.
     */
    public List<String> changedStartFiles(Path project, Reviewed mcp) {
        Entry e = entry(project).filter(Entry::trusted).filter(x -> mcp.digest().equals(x.mcpJson())).orElse(null);
        if (e == null) return List.of();
        java.util.Set<String> names = new java.util.TreeSet<>(e.startFiles().keySet());
        names.addAll(mcp.startFiles().keySet());
        return names.stream().filter(n -> !java.util.Objects.equals(e.startFiles().get(n), mcp.startFiles().get(n))).toList();
    }

    /** Whether the user said "never" to exactly this {@code .agent/mcp.json}. */
    public boolean declined(Path project, Reviewed mcp) {
        return entry(project).filter(e -> !e.trusted()).map(e -> mcp.digest().equals(e.mcpJson())).orElse(false);
    }

    /** Records the user's answer for the project and the {@code .agent/mcp.json} they saw (null: none). */
    public synchronized void record(Path project, boolean trusted, Reviewed mcp) throws IOException {
        ObjectNode root = readAll();
        ObjectNode projects = root.path("projects").isObject() ? (ObjectNode) root.get("projects") : root.putObject("projects");
        ObjectNode e = projects.putObject(key(project)).put("trusted", trusted);
        if (mcp == null) e.putNull("mcpJson");
        else e.put("mcpJson", mcp.digest());
        if (mcp != null && !mcp.startFiles().isEmpty()) {
            ObjectNode files = e.putObject("startFiles");
            new java.util.TreeMap<>(mcp.startFiles()).forEach(files::put);
        }
        e.put("decidedAt", Instant.now().toString());
        write(root);
    }

    /** Forgets the project: it is untrusted again. Returns whether it was listed. */
    public synchronized boolean forget(Path project) throws IOException {
        ObjectNode root = readAll();
        if (!root.path("projects").isObject() || ((ObjectNode) root.get("projects")).remove(key(project)) == null) return false;
        write(root);
        return true;
    }

    /** The key of a project: its real path (links resolved), so a link to a trusted project is the same project. */
    static String key(Path project) {
        try {
            return project.toRealPath().toString();
        } catch (IOException e) {
            return project.toAbsolutePath().normalize().toString();
        }
    }

    /** What is wrong with the file, in plain words, or empty when it is fine or absent. */
    public Optional<String> problem() {
        return parse() == null ? Optional.of(file + " is not a JSON object; no project is trusted until it is fixed.")
                : Optional.empty();
    }

    private ObjectNode readAll() {
        ObjectNode root = parse();
        if (root != null) return root;
        log.warn("{} is not a JSON object; no project is trusted until it is fixed", file);
        return Json.object();
    }

    /** The file's object, an empty one when there is no file, null when it is broken. */
    private ObjectNode parse() {
        if (!Files.isRegularFile(file)) return Json.object();
        try {
            JsonNode n = Json.mapper().readTree(Files.readString(file));
            return n != null && n.isObject() ? (ObjectNode) n : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private void write(ObjectNode root) throws IOException {
        Files.createDirectories(file.getParent());
        byte[] json = (Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n").getBytes(StandardCharsets.UTF_8);
        DurableFiles.writeAtomically(file, json, true);
    }
}
