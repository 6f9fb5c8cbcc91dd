package cn.agentao.agent.door.agora;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * Which saved session is which space's: {@code agora-spaces.json} in the session store's directory, keyed by
 * server, agent id and space, so a restart continues each space's conversation. Written whole and moved into
 * place; an unreadable file counts as empty (the spaces then start new sessions, and say so in the log).
 */
final class SpaceSessions {
    static final String FILE = "agora-spaces.json";

    private final Path file;

    SpaceSessions(Path storeDirectory) {
        this.file = storeDirectory.resolve(FILE);
    }

    static String key(URI url, String agentId, String space) {
        return withoutQuery(url) + " " + agentId + " " + space;
    }

    /** The server's URL without its query (which may hold a token) or fragment. */
    static String withoutQuery(URI url) {
        return url.toString().replaceFirst("[?#].*$", "");
    }

    synchronized Optional<String> find(String key) {
        JsonNode id = read().path(key).path("sessionId");
        return id.isTextual() ? Optional.of(id.asText()) : Optional.empty();
    }

    synchronized void remember(String key, String sessionId) throws IOException {
        ObjectNode all = read();
        all.putObject(key).put("sessionId", sessionId);
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(FILE + ".tmp");
        Files.writeString(tmp, Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(all));
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private ObjectNode read() {
        try {
            if (!Files.exists(file)) return Json.object();
            JsonNode n = Json.MAPPER.readTree(file.toFile());
            return n instanceof ObjectNode o ? o : Json.object();
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(SpaceSessions.class).warn("agora: {} is unreadable ({}); spaces start new sessions", file, e.getMessage());
            return Json.object();
        }
    }
}
