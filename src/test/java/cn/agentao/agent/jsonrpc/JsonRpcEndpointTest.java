package cn.agentao.agent.jsonrpc;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.transport.LineReader;
import cn.agentao.agent.transport.MessageWriter;
import cn.agentao.agent.util.CancellationSource;
import cn.agentao.agent.util.CancelledException;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** The endpoint over in-memory pipes: correlation of our requests, and cancellation in both directions. */
class JsonRpcEndpointTest {
    PipedOutputStream toAgent;
    BufferedReader fromAgent;
    JsonRpcEndpoint endpoint;
    Thread reader;
    final CountDownLatch slowStarted = new CountDownLatch(1);
    final CountDownLatch deafRelease = new CountDownLatch(1);
    final java.util.concurrent.atomic.AtomicBoolean tidiedUp = new java.util.concurrent.atomic.AtomicBoolean();

    @BeforeEach
    void start() throws IOException {
        PipedInputStream agentIn = new PipedInputStream(1 << 16);
        toAgent = new PipedOutputStream(agentIn);
        PipedInputStream clientIn = new PipedInputStream(1 << 16);
        PipedOutputStream agentOut = new PipedOutputStream(clientIn);
        fromAgent = new BufferedReader(new InputStreamReader(clientIn, StandardCharsets.UTF_8));
        MethodTable table = new MethodTable()
                .add("echo", MethodTable.Dispatch.CONCURRENT, false, (p, ctx) -> p)
                .add("slow", MethodTable.Dispatch.CONCURRENT, false, (p, ctx) -> {
                    slowStarted.countDown();
                    while (!ctx.cancellation().isCancelled()) Thread.sleep(5);
                    throw new CancelledException();
                })
                .add("tidy", MethodTable.Dispatch.CONCURRENT, false, (p, ctx) -> {
                    slowStarted.countDown();
                    while (!ctx.cancellation().isCancelled()) Thread.sleep(5);
                    Thread.sleep(200); // winding down (a turn saving its records), then an ordinary result
                    tidiedUp.set(true);
                    return Json.object().put("stopReason", "cancelled");
                })
                .add("deaf", MethodTable.Dispatch.CONCURRENT, false, (p, ctx) -> {
                    slowStarted.countDown();
                    deafRelease.await(); // ignores the cancel
                    return Json.object();
                })
                .add("boom", MethodTable.Dispatch.CONCURRENT, false, (p, ctx) -> { throw new IllegalStateException("secret detail"); });
        endpoint = new JsonRpcEndpoint(new LineReader(agentIn, 1 << 20), new MessageWriter(agentOut), table, 1 << 20);
        reader = Thread.ofPlatform().daemon().start(endpoint::run);
    }

    @AfterEach
    void stop() throws IOException {
        toAgent.close();
    }

    void send(String line) throws IOException {
        toAgent.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        toAgent.flush();
    }

    JsonNode next() throws IOException {
        return Json.mapper().readTree(fromAgent.readLine());
    }

    @Test
    void outboundRequestsAreMatchedByIdEvenOutOfOrder() throws Exception {
        JsonRpcEndpoint.PendingRequest a = endpoint.request("fs/read_text_file", Json.object().put("path", "/a"));
        JsonRpcEndpoint.PendingRequest b = endpoint.request("fs/read_text_file", Json.object().put("path", "/b"));
        JsonNode ra = next(), rb = next();
        assertEquals("/a", ra.path("params").path("path").asText());
        send("{\"jsonrpc\":\"2.0\",\"id\":" + rb.path("id") + ",\"result\":{\"content\":\"B\"}}");
        send("{\"jsonrpc\":\"2.0\",\"id\":" + ra.path("id") + ",\"error\":{\"code\":-32002,\"message\":\"not found\"}}");
        assertEquals("B", b.future().get(30, TimeUnit.SECONDS).path("content").asText());
        Exception e = assertThrows(Exception.class, () -> a.future().get(30, TimeUnit.SECONDS));
        assertEquals(-32002, ((JsonRpcException) e.getCause()).code());
    }

    @Test
    void withdrawingOurRequestSendsCancelRequestAndTheLateAnswerIsDropped() throws Exception {
        CancellationSource cancel = new CancellationSource();
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                endpoint.call("session/request_permission", Json.object(), cancel);
                return null;
            } catch (Exception e) {
                return e;
            }
        });
        JsonNode req = next();
        cancel.cancel();
        JsonNode cancelNote = next();
        assertEquals("$/cancel_request", cancelNote.path("method").asText());
        assertEquals(req.path("id").asLong(), cancelNote.path("params").path("requestId").asLong());
        assertInstanceOf(CancelledException.class, outcome.get(30, TimeUnit.SECONDS));
        send("{\"jsonrpc\":\"2.0\",\"id\":" + req.path("id") + ",\"result\":{}}");
        send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"x\":1}}");
        assertEquals(1, next().path("result").path("x").asInt(), "late answer dropped, endpoint still serving");
    }

    @Test
    void inboundCancelRequestAnswersMinus32800ExactlyOnce() throws Exception {
        send("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"slow\"}");
        assertTrue(slowStarted.await(5, TimeUnit.SECONDS));
        send("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancel_request\",\"params\":{\"requestId\":\"s1\"}}");
        JsonNode r = next();
        assertEquals("s1", r.path("id").asText());
        assertEquals(-32800, r.path("error").path("code").asInt());
        send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":{}}");
        assertEquals(2, next().path("id").asInt(), "no second answer for s1 came first");
    }

    @Test
    void theCancelledAnswerComesOnlyOnceTheHandlerHasStopped() throws Exception {
        send("{\"jsonrpc\":\"2.0\",\"id\":\"t1\",\"method\":\"tidy\"}");
        assertTrue(slowStarted.await(5, TimeUnit.SECONDS));
        send("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancel_request\",\"params\":{\"requestId\":\"t1\"}}");
        JsonNode r = next();
        assertTrue(tidiedUp.get(), "answered before the handler had finished: a next request could find its work still running");
        assertEquals("t1", r.path("id").asText());
        assertEquals(-32800, r.path("error").path("code").asInt(), "a cancelled request is answered -32800 even if it returned: " + r);
        send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":{}}");
        assertEquals(2, next().path("id").asInt(), "no second answer for t1 came first");
    }

    @Test
    void aHandlerThatIgnoresTheCancelIsStillAnsweredOnce() throws Exception {
        send("{\"jsonrpc\":\"2.0\",\"id\":\"d1\",\"method\":\"deaf\"}");
        assertTrue(slowStarted.await(5, TimeUnit.SECONDS));
        send("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancel_request\",\"params\":{\"requestId\":\"d1\"}}");
        JsonNode r = next();
        assertEquals("d1", r.path("id").asText());
        assertEquals(-32800, r.path("error").path("code").asInt());
        deafRelease.countDown(); // its late result is not sent
        send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\",\"params\":{}}");
        assertEquals(3, next().path("id").asInt(), "no second answer for d1 came first");
    }

    @Test
    void unexpectedFailuresAreInternalErrorsWithoutTheirMessage() throws Exception {
        send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"boom\"}");
        JsonNode r = next();
        assertEquals(-32603, r.path("error").path("code").asInt());
        assertFalse(r.toString().contains("secret detail"));
    }

    @Test
    void endOfInputFailsRequestsStillWaitingOnTheClient() throws Exception {
        JsonRpcEndpoint.PendingRequest p = endpoint.request("terminal/create", Json.object());
        next();
        toAgent.close();
        Exception e = assertThrows(Exception.class, () -> p.future().get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("disconnected"));
        reader.join(5000);
        assertTrue(endpoint.isClosed());
    }
}
