package cn.agentao.agent.door.acp;

import cn.agentao.agent.jsonrpc.JsonRpcEndpoint;
import cn.agentao.agent.jsonrpc.MethodTable;
import cn.agentao.agent.door.acp.protocol.ClientCapabilities;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.door.acp.protocol.SessionUpdate;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.transport.LineReader;
import cn.agentao.agent.transport.MessageWriter;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Streamed text to a client that reads slowly: fewer, longer chunks, the same text, the same order. */
class AcpSessionClientTest {
    @Test
    void textQueuedBehindASlowClientIsCoalescedWithoutCrossingOtherUpdates() throws Exception {
        PipedInputStream clientSide = new PipedInputStream(1024); // small: the writer soon waits on the client
        PipedOutputStream agentOut = new PipedOutputStream(clientSide);
        JsonRpcEndpoint endpoint = new JsonRpcEndpoint(new LineReader(new ByteArrayInputStream(new byte[0]), 1 << 20),
                new MessageWriter(agentOut), new MethodTable(), 1 << 20);
        AcpSessionClient client = new AcpSessionClient(endpoint, "s1", ClientCapabilities.NONE);

        StringBuilder before = new StringBuilder(), after = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            String d = "a" + i + " ";
            before.append(d);
            client.update(SessionUpdate.AgentMessageChunk.text(d));
        }
        client.update(new SessionUpdate.ToolCall("t1", "Read", ToolKind.READ, ToolCallStatus.PENDING, null, null, null, null));
        for (int i = 0; i < 2000; i++) {
            String d = "b" + i + " ";
            after.append(d);
            client.update(SessionUpdate.AgentMessageChunk.text(d));
        }
        endpoint.notify("done", Json.object());

        BufferedReader r = new BufferedReader(new InputStreamReader(clientSide, StandardCharsets.UTF_8));
        List<JsonNode> updates = new ArrayList<>();
        String line;
        while ((line = r.readLine()) != null) {
            JsonNode m = Json.mapper().readTree(line);
            if ("done".equals(m.path("method").asText())) break;
            updates.add(m.path("params").path("update"));
        }
        StringBuilder seenBefore = new StringBuilder(), seenAfter = new StringBuilder();
        boolean pastTool = false;
        for (JsonNode u : updates) {
            if ("tool_call".equals(u.path("sessionUpdate").asText())) { pastTool = true; continue; }
            (pastTool ? seenAfter : seenBefore).append(u.path("content").path("text").asText());
        }
        assertTrue(pastTool);
        assertEquals(before.toString(), seenBefore.toString(), "no text lost, duplicated or reordered before the tool call");
        assertEquals(after.toString(), seenAfter.toString(), "nor after it");
        assertTrue(updates.size() < 4001, "a slow client gets fewer, longer chunks: " + updates.size());
    }
}
