package cn.agentao.agent.acp;

import cn.agentao.agent.engine.SessionClient;
import cn.agentao.agent.jsonrpc.JsonRpcEndpoint;
import cn.agentao.agent.protocol.ClientCapabilities;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A session's view of the ACP connection: its updates become session/update notifications. */
final class AcpSessionClient implements SessionClient {
    private final JsonRpcEndpoint endpoint;
    private final String sessionId;
    private final ClientCapabilities capabilities;

    AcpSessionClient(JsonRpcEndpoint endpoint, String sessionId, ClientCapabilities capabilities) {
        this.endpoint = endpoint;
        this.sessionId = sessionId;
        this.capabilities = capabilities;
    }

    /** The params of a session/update notification, serialised without an intermediate tree. */
    record UpdateParams(String sessionId, SessionUpdate update) {}

    @Override
    public void update(SessionUpdate update) {
        endpoint.notify("session/update", new UpdateParams(sessionId, update));
    }

    @Override
    public ClientCapabilities capabilities() { return capabilities; }

    @Override
    public JsonNode call(String method, ObjectNode params, Cancellation cancel) throws Exception {
        if (!params.has("sessionId")) params.put("sessionId", sessionId);
        return endpoint.call(method, params, cancel);
    }
}
