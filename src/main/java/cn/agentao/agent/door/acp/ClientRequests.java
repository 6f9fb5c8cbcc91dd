package cn.agentao.agent.door.acp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Requests from the agent to the ACP client, implemented by the JSON-RPC layer. */
@FunctionalInterface
public interface ClientRequests {
    /** Sends the request and blocks until the client answers; throws on an error answer or cancellation. */
    JsonNode request(String method, ObjectNode params) throws Exception;
}
