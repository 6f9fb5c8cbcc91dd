package cn.agentao.agent.door.acp;

import cn.agentao.agent.jsonrpc.JsonRpcEndpoint;
import cn.agentao.agent.door.acp.protocol.ClientCapabilities;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.door.acp.protocol.SessionUpdate;
import cn.agentao.agent.door.acp.protocol.SessionUpdateJson;
import cn.agentao.agent.util.JsonWriter;
import com.fasterxml.jackson.core.JsonGenerator;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;

/** A session's view of the ACP connection: its updates become session/update notifications. */
final class AcpSessionClient {
    private final JsonRpcEndpoint endpoint;
    private final String sessionId;
    private final ClientCapabilities capabilities;

    AcpSessionClient(JsonRpcEndpoint endpoint, String sessionId, ClientCapabilities capabilities) {
        this.endpoint = endpoint;
        this.sessionId = sessionId;
        this.capabilities = capabilities;
    }

    /** The params of a session/update notification, written straight to the protocol stream. */
    record UpdateParams(String sessionId, SessionUpdate update) implements JsonWriter.Writable {
        @Override
        public void writeJson(JsonGenerator g) throws IOException {
            g.writeStartObject();
            JsonWriter.stringField(g, "sessionId", sessionId);
            if (update != null) {
                g.writeFieldName("update");
                SessionUpdateJson.write(g, update);
            }
            g.writeEndObject();
        }
    }

    /** Streamed text not yet written: more deltas of the same kind join it until the writer takes it. */
    private static final class PendingText {
        final boolean thought;
        final StringBuilder text;

        PendingText(boolean thought, String first) {
            this.thought = thought;
            this.text = new StringBuilder(first);
        }
    }

    private PendingText open; // guarded by this

    /**
     * Text and thought deltas are coalesced while the writer is behind (each goes alone when the client keeps
     * up); any other update closes the pending text first, so the order of the stream is kept.
     */
    public void update(SessionUpdate update) {
        if (update instanceof SessionUpdate.AgentMessageChunk c && c.content() instanceof ContentBlock.Text t) {
            streamText(false, t.text());
        } else if (update instanceof SessionUpdate.AgentThoughtChunk c && c.content() instanceof ContentBlock.Text t) {
            streamText(true, t.text());
        } else {
            synchronized (this) {
                open = null;
            }
            endpoint.notify("session/update", new UpdateParams(sessionId, update));
        }
    }

    private void streamText(boolean thought, String delta) {
        PendingText p;
        synchronized (this) {
            if (open != null && open.thought == thought) {
                open.text.append(delta);
                return;
            }
            p = new PendingText(thought, delta);
            open = p;
        }
        endpoint.notifyDeferred("session/update", () -> {
            String text;
            synchronized (this) {
                if (open == p) open = null;
                text = p.text.toString();
            }
            SessionUpdate u = p.thought ? SessionUpdate.AgentThoughtChunk.text(text) : SessionUpdate.AgentMessageChunk.text(text);
            return new UpdateParams(sessionId, u);
        });
    }

    public ClientCapabilities capabilities() { return capabilities; }

    /** The same connection seen from another session: a child session this one owns. */
    AcpSessionClient forSession(String id) { return new AcpSessionClient(endpoint, id, capabilities); }

    /** Calls a client method for this session and waits for the answer; withdraws it when {@code cancel} fires. */
    public JsonNode call(String method, ObjectNode params, Cancellation cancel) throws Exception {
        if (!params.has("sessionId")) params.put("sessionId", sessionId);
        return endpoint.call(method, params, cancel);
    }
}
