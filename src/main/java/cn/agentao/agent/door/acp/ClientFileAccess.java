package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.tool.BinaryFileException;
import cn.agentao.agent.core.tool.FileAccess;
import cn.agentao.agent.core.tool.TextFiles;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;

/**
 * Files through the ACP client ({@code fs/read_text_file}, {@code fs/write_text_file}), which sees unsaved
 * editor buffers and records the change in its own history.
 */
public final class ClientFileAccess implements FileAccess {
    private final ClientRequests client;
    private final String sessionId;

    public ClientFileAccess(ClientRequests client, String sessionId) {
        this.client = client;
        this.sessionId = sessionId;
    }

    @Override
    public String readText(Path path, Integer line, Integer limit) throws IOException {
        ObjectNode params = Json.object().put("sessionId", sessionId).put("path", path.toString());
        if (line != null) params.put("line", line);
        if (limit != null) params.put("limit", limit);
        JsonNode result = call("fs/read_text_file", params);
        JsonNode content = result == null ? null : result.get("content");
        if (content == null || !content.isTextual()) throw new IOException("the client sent no content for " + path);
        if (TextFiles.looksBinary(content.asText())) throw new BinaryFileException(path);
        return content.asText();
    }

    @Override
    public void writeText(Path path, String content) throws IOException {
        call("fs/write_text_file", Json.object().put("sessionId", sessionId).put("path", path.toString())
                .put("content", content));
    }

    private JsonNode call(String method, ObjectNode params) throws IOException {
        try {
            return client.request(method, params);
        } catch (IOException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(method + " interrupted");
        } catch (Exception e) {
            throw new IOException(method + " failed: " + e.getMessage(), e);
        }
    }
}
