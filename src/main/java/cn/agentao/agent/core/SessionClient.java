package cn.agentao.agent.core;

import cn.agentao.agent.protocol.ClientCapabilities;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** What the engine needs from whoever serves the session (the ACP connection, the terminal, …). */
public interface SessionClient {
    /** Shows an update to the user (ACP: a session/update notification). */
    void update(SessionUpdate update);

    ClientCapabilities capabilities();

    /** Calls a client method and waits for the answer; withdraws it when {@code cancel} fires. */
    JsonNode call(String method, ObjectNode params, Cancellation cancel) throws Exception;

    /** The turn's model call failed; {@code message} is the reason shown to the user, streamed next as text. */
    default void modelFailed(String message) {}
}
