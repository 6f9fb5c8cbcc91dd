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

    /**
     * What the client said: its message, and the reason ACP clients put in {@code data} (a string, or an object's
     * {@code details}, {@code message} or {@code reason}, as the ACP SDKs' "Internal error" carries it).
     */
    private static String clientReason(cn.agentao.agent.jsonrpc.JsonRpcException e) {
        JsonNode data = e.data();
        String reason = null;
        if (data != null && data.isTextual()) reason = data.asText();
        if (data != null && data.isObject()) {
            for (String field : new String[]{"details", "message", "reason"}) {
                if (data.path(field).isTextual()) {
                    reason = data.path(field).asText();
                    break;
                }
            }
        }
        String message = e.getMessage() == null ? "" : e.getMessage();
        if (reason == null || reason.isBlank() || message.contains(reason)) return message;
        return message.isBlank() ? reason : message + ": " + reason;
    }

    private JsonNode call(String method, ObjectNode params) throws IOException {
        try {
            return client.request(method, params);
        } catch (IOException e) {
            throw e;
        } catch (cn.agentao.agent.jsonrpc.JsonRpcException e) { // the client's refusal, with its reason
            throw new IOException(method + " failed: " + clientReason(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(method + " interrupted");
        } catch (Exception e) {
            throw new IOException(method + " failed: " + e.getMessage(), e);
        }
    }
}
