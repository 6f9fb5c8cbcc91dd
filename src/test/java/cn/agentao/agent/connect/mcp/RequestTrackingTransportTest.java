package cn.agentao.agent.connect.mcp;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import static cn.agentao.agent.util.Json.mapper;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Through the SDK's real client: the id of an abandoned tools/call (not of the initialize sent first under the
 * same context) is learnt, and the server is sent notifications/cancelled for it.
 */
class RequestTrackingTransportTest {

    /** A server that answers initialize and never answers anything else; records what it is sent. */
    static final class SilentServer implements McpClientTransport {
        final List<McpSchema.JSONRPCMessage> received = new CopyOnWriteArrayList<>();
        private final JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(mapper());
        private Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler;

        @Override
        public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
            this.handler = handler;
            return Mono.empty();
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return Mono.fromRunnable(() -> {
                received.add(message);
                if (message instanceof McpSchema.JSONRPCRequest r && r.method().equals(McpSchema.METHOD_INITIALIZE)) {
                    Map<String, Object> result = Map.of("protocolVersion", "2025-06-18",
                            "capabilities", Map.of("tools", Map.of()), "serverInfo", Map.of("name", "silent", "version", "1"));
                    handler.apply(Mono.just(McpSchema.JSONRPCResponse.result(r.id(), result))).subscribe();
                }
            });
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.empty();
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return mapper.convertValue(data, typeRef);
        }
    }

    @Test
    void anAbandonedCallIsCancelledAtTheServer() throws Exception {
        SilentServer server = new SilentServer();
        RequestTrackingTransport transport = new RequestTrackingTransport(server);
        McpAsyncClient client = McpClient.async(transport).requestTimeout(Duration.ofMinutes(1)).build();
        RequestTrackingTransport.RequestId id = new RequestTrackingTransport.RequestId(McpSchema.METHOD_TOOLS_CALL);
        Disposable call = client.callTool(McpSchema.CallToolRequest.builder("slow").arguments(Map.of()).build())
                .contextWrite(RequestTrackingTransport.capturing(id))
                .subscribe();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (id.get() == null && System.nanoTime() < deadline) Thread.sleep(10);
        assertNotNull(id.get(), "the tools/call id was captured");
        Object initializeId = server.received.stream().filter(m -> m instanceof McpSchema.JSONRPCRequest r && r.method().equals("initialize"))
                .map(m -> ((McpSchema.JSONRPCRequest) m).id()).findFirst().orElseThrow();
        assertNotEquals(initializeId, id.get());
        Object callId = server.received.stream().filter(m -> m instanceof McpSchema.JSONRPCRequest r && r.method().equals("tools/call"))
                .map(m -> ((McpSchema.JSONRPCRequest) m).id()).findFirst().orElseThrow();
        assertEquals(callId, id.get());

        call.dispose();
        transport.sendCancelled(id, "cancelled by the user");
        McpSchema.JSONRPCNotification cancelled = server.received.stream()
                .filter(m -> m instanceof McpSchema.JSONRPCNotification n && n.method().equals("notifications/cancelled"))
                .map(McpSchema.JSONRPCNotification.class::cast).findFirst().orElseThrow();
        assertEquals(Map.of("requestId", callId, "reason", "cancelled by the user"), cancelled.params());
        assertTrue(client.isInitialized());
        client.close();
    }
}
