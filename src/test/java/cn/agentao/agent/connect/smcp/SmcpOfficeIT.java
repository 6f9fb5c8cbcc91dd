package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.connect.mcp.McpToolResult;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.permission.PermissionMemory;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.CancellationSource;
import cn.agentao.agent.util.CancelledException;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static cn.agentao.agent.connect.smcp.SmcpTestOffice.ev;
import static org.junit.jupiter.api.Assertions.*;

/** The agent's side of A2C-SMCP against a real Socket.IO office (Node socket.io) with scripted Computers. */
class SmcpOfficeIT {
    static final Duration WAIT = Duration.ofSeconds(30);
    final List<AutoCloseable> open = new ArrayList<>();
    final List<String> notices = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open.reversed()) c.close();
    }

    SmcpTestOffice office(String... args) throws Exception {
        SmcpTestOffice o = SmcpTestOffice.start(args);
        open.add(o);
        return o;
    }

    SmcpOffice agent(SmcpTestOffice server, String office, String token, String version, int toolTimeout) {
        SmcpOffice a = new SmcpOffice(new SmcpConfig(URI.create(server.url()), office, "agent-1", token, token == null ? null : "SMCP_TOKEN",
                version, Duration.ofSeconds(toolTimeout)));
        a.addNoticeListener(notices::add);
        open.add(a);
        a.start();
        return a;
    }

    SmcpOffice joined(SmcpTestOffice server) {
        SmcpOffice a = agent(server, "office-1", null, "0.2.0", 60);
        assertTrue(a.awaitSettled(WAIT), () -> "not joined: " + a.status());
        return a;
    }

    static ObjectNode args(String field, Object value) {
        return Json.mapper().valueToTree(java.util.Map.of(field, value));
    }

    static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) fail("not within " + WAIT + ": " + what);
            Thread.sleep(50);
        }
    }

    @Test
    void joinsTheOfficeAndOffersEachComputersToolsUnderTheirNames() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        JsonNode joined = server.await(e -> "joined".equals(e.path("ev").asText()) && "agent".equals(e.path("role").asText()), WAIT);
        assertEquals("agent-1", joined.path("name").asText());
        assertEquals("0.2.0", joined.path("version").asText(), "a2c_version travels in the query");
        List<String> names = agent.tools().stream().map(SmcpTool::name).toList();
        assertTrue(names.containsAll(List.of("smcp__alpha__echo", "smcp__alpha__note", "smcp__alpha__web_search", "smcp__alpha__doc_search",
                "smcp__alpha__get_desktop", "smcp__alpha__get_resources", "smcp__alpha__get_dpe")), names.toString());
        assertFalse(names.contains("smcp__alpha__search"), "clashing names take their alias");
        SmcpTool echo = agent.tool("smcp__alpha__echo").orElseThrow();
        assertTrue(echo.autoApply());
        assertTrue(echo.readOnly());
        assertEquals("text", echo.schema().path("required").get(0).asText());
        SmcpTool note = agent.tool("smcp__alpha__note").orElseThrow();
        assertFalse(note.autoApply());
        assertFalse(note.readOnly());
        assertEquals(List.of("alpha"), List.copyOf(agent.status().computers().keySet()));
        assertEquals(1, agent.toolSpecifications().stream().filter(s -> s.name().equals("smcp__alpha__echo")).count());
    }

    @Test
    void aToolCallGoesThroughTheOfficeAndItsResultComesBack() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        McpToolResult r = agent.call(agent.tool("smcp__alpha__echo").orElseThrow(), args("text", "hi"), Cancellation.NONE);
        assertFalse(r.isError(), r.text());
        assertEquals("alpha says: hi", r.text());
        JsonNode call = server.await(ev("tool_call"), WAIT);
        assertEquals("agent-1", call.path("agent").asText());
        assertEquals("echo", call.path("tool").asText());
        assertEquals("hi", call.path("params").path("text").asText());
        assertEquals(60, call.path("timeout").asInt());
        assertFalse(call.path("req_id").asText().isBlank());

        McpToolResult alias = agent.call(agent.tool("smcp__alpha__doc_search").orElseThrow(), args("q", "budget"), Cancellation.NONE);
        assertEquals("results for budget", alias.text());
        assertEquals("search", server.await(ev("tool_call"), 2, WAIT).path("tool").asText(), "the Computer is called by the tool's own name");
    }

    @Test
    void imagesStayImagesAndAFailedToolIsAFailedCall() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        McpToolResult picture = agent.call(agent.tool("smcp__alpha__picture").orElseThrow(), Json.object(), Cancellation.NONE);
        assertFalse(picture.isError());
        assertTrue(picture.content().stream().anyMatch(b -> b instanceof ContentBlock.Image i && "image/png".equals(i.mimeType())), picture.content().toString());
        McpToolResult failed = agent.call(agent.tool("smcp__alpha__fail").orElseThrow(), Json.object(), Cancellation.NONE);
        assertTrue(failed.isError());
        assertTrue(failed.text().contains("the disk is full"), failed.text());
        SmcpTool ghost = new SmcpTool(SmcpTool.Kind.TOOL, "ghost", "echo", "smcp__ghost__echo", "", Json.object(), false, false, true);
        McpToolResult missing = agent.call(ghost, Json.object(), Cancellation.NONE);
        assertTrue(missing.isError());
        assertTrue(missing.text().contains("not found"), missing.text());
    }

    @Test
    void theToolListFollowsTheOffice() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        server.command("join beta");
        eventually(() -> agent.tool("smcp__beta__echo").isPresent(), "beta's tools appear");
        eventually(() -> notices.stream().anyMatch(n -> n.contains("Computer beta joined")), "a notice names beta");
        assertEquals("beta says: yo", agent.call(agent.tool("smcp__beta__echo").orElseThrow(), args("text", "yo"), Cancellation.NONE).text());

        server.command("update alpha");
        eventually(() -> agent.tool("smcp__alpha__extra").isPresent(), "alpha's new tool appears");
        eventually(() -> notices.stream().anyMatch(n -> n.contains("Computer alpha changed its tools")), "a notice says alpha changed");

        server.command("leave beta");
        eventually(() -> agent.tool("smcp__beta__echo").isEmpty(), "beta's tools are gone");
        eventually(() -> notices.stream().anyMatch(n -> n.contains("Computer beta left")), "a notice says beta left");
        assertTrue(agent.tool("smcp__alpha__echo").isPresent());
    }

    /** The tool {@code remote} of Computer {@code computer}, once the office offers it. */
    static SmcpTool toolOf(SmcpOffice agent, String computer, String remote) throws InterruptedException {
        eventually(() -> agent.tools().stream().anyMatch(t -> t.computer().equals(computer) && t.remoteName().equals(remote)),
                computer + "'s " + remote + " appears");
        return agent.tools().stream().filter(t -> t.computer().equals(computer) && t.remoteName().equals(remote)).findFirst().orElseThrow();
    }

    static PermissionRequest permission(SmcpOffice agent, SmcpTool tool) {
        return new SmcpToolAdapter(agent, tool).prepare(Json.object(), null).permission();
    }

    @Test
    void anAlwaysAllowForOneComputerDoesNotCoverAnotherWhoseNameSanitisesAlike() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        server.command("join a.b");
        SmcpTool dotted = toolOf(agent, "a.b", "note");
        PermissionMemory memory = new PermissionMemory();
        assertTrue(memory.record(permission(agent, dotted), "allow_always"));
        assertEquals(Optional.of(PermissionMemory.Answer.ALLOW), memory.recall(permission(agent, dotted)));

        server.command("leave a.b");
        eventually(() -> agent.tools().stream().noneMatch(t -> t.computer().equals("a.b")), "a.b's tools are gone");
        server.command("join a_b");
        SmcpTool underscored = toolOf(agent, "a_b", "note");
        assertNotEquals(dotted.name(), underscored.name(), "another Computer never inherits the name of a tool");
        assertEquals(Optional.empty(), memory.recall(permission(agent, underscored)), "a.b's answer is not a_b's");

        server.command("join a.b"); // back, after a_b this time: the same name as before, the same answer
        SmcpTool again = toolOf(agent, "a.b", "note");
        assertEquals(dotted.name(), again.name());
        assertEquals(Optional.of(PermissionMemory.Answer.ALLOW), memory.recall(permission(agent, again)));
        assertEquals(Optional.empty(), memory.recall(permission(agent, toolOf(agent, "a_b", "note"))));
        assertEquals(PermissionMemory.fromJson(memory.toJson()).snapshot(), memory.snapshot(), "kept with the session as it was");
    }

    @Test
    void cancellingACallSendsToolCallCancel() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        CancellationSource cancel = new CancellationSource();
        CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                return agent.call(agent.tool("smcp__alpha__slow").orElseThrow(), args("seconds", 120), cancel);
            } catch (CancelledException e) {
                return e;
            }
        });
        String reqId = server.await(ev("tool_call"), WAIT).path("req_id").asText();
        cancel.cancel();
        assertInstanceOf(CancelledException.class, outcome.get(30, TimeUnit.SECONDS));
        assertEquals(reqId, server.await(ev("cancel_received"), WAIT).path("req_id").asText());
        assertEquals(reqId, server.await(ev("cancelled"), WAIT).path("req_id").asText(), "the Computer hears notify:tool_call_cancel");
    }

    @Test
    void aCallThatTimesOutIsCancelledAndSaysSo() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = agent(server, "office-1", null, "0.2.0", 1);
        assertTrue(agent.awaitSettled(WAIT));
        McpToolResult r = agent.call(agent.tool("smcp__alpha__slow").orElseThrow(), args("seconds", 600), Cancellation.NONE);
        assertTrue(r.isError());
        assertTrue(r.text().contains("did not answer within 1 s"), r.text());
        String reqId = server.await(ev("tool_call"), WAIT).path("req_id").asText();
        assertEquals(reqId, server.await(ev("cancel_received"), WAIT).path("req_id").asText());
    }

    @Test
    void aComputerThatLeavesMidCallEndsTheCallWithAReason() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        CompletableFuture<McpToolResult> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                return agent.call(agent.tool("smcp__alpha__slow").orElseThrow(), args("seconds", 600), Cancellation.NONE);
            } catch (CancelledException e) {
                throw new IllegalStateException(e);
            }
        });
        server.await(ev("tool_call"), WAIT);
        server.command("leave alpha");
        McpToolResult r = outcome.get(30, TimeUnit.SECONDS);
        assertTrue(r.isError());
        assertTrue(r.text().contains("Computer alpha left the office during the call"), r.text());
    }

    @Test
    void aVersionMismatchIsNamedAndNotRetried() throws Exception {
        SmcpTestOffice server = office("--a2c-version", "0.3.0");
        SmcpOffice agent = agent(server, "office-1", null, "0.2.0", 60);
        assertFalse(agent.awaitSettled(WAIT));
        SmcpOffice.Status s = agent.status();
        assertEquals(SmcpOffice.State.FAILED, s.state());
        assertTrue(s.problem().contains("this server speaks A2C 0.3.0, the agent speaks 0.2.0"), s.problem());
        assertTrue(notices.stream().anyMatch(n -> n.contains("this server speaks A2C 0.3.0")), notices.toString());
        int refusals = server.count(e -> "refused".equals(e.path("ev").asText()) && e.path("code").asInt() == 4008);
        Thread.sleep(2000); // the library's first reconnect would come after 0.5-0.75 s
        assertEquals(refusals, server.count(e -> "refused".equals(e.path("ev").asText()) && e.path("code").asInt() == 4008),
                "no further handshake after the mismatch");
        assertEquals(0, server.count(e -> "joined".equals(e.path("ev").asText()) && "agent".equals(e.path("role").asText())));

        SmcpOffice matching = agent(server, "office-1", null, "0.3.0", 60);
        assertTrue(matching.awaitSettled(WAIT), "a2cVersion from config.json: " + matching.status());
    }

    @Test
    void aFullOfficeAnUnknownOfficeAndABadTokenAreNamed() throws Exception {
        SmcpTestOffice server = office("--token", "s3cret-token");
        SmcpOffice first = agent(server, "office-1", "s3cret-token", "0.2.0", 60);
        assertTrue(first.awaitSettled(WAIT), first.status().toString());

        SmcpOffice second = agent(server, "office-1", "s3cret-token", "0.2.0", 60);
        assertFalse(second.awaitSettled(WAIT));
        assertTrue(second.status().problem().contains("the office is full"), second.status().problem());

        SmcpOffice lost = agent(server, "no-such-office", "s3cret-token", "0.2.0", 60);
        assertFalse(lost.awaitSettled(WAIT));
        assertTrue(lost.status().problem().contains("the office was not found"), lost.status().problem());

        SmcpOffice wrong = agent(server, "office-1", "wrong-token", "0.2.0", 60);
        assertFalse(wrong.awaitSettled(WAIT));
        String problem = wrong.status().problem();
        assertTrue(problem.contains("refused the agent") && problem.contains("invalid token"), problem);
        assertFalse(String.join("\n", notices).contains("wrong-token") || String.join("\n", notices).contains("s3cret-token"),
                "no token in what the user is told");
        assertFalse(first.status().toString().contains("s3cret"), "no token in the status");
    }

    @Test
    void aLostConnectionReconnectsAndJoinsAgain() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        server.command("drop-agents");
        server.await(e -> "joined".equals(e.path("ev").asText()) && "agent".equals(e.path("role").asText()), 2, WAIT);
        eventually(() -> agent.status().state() == SmcpOffice.State.JOINED && agent.tool("smcp__alpha__echo").isPresent(), "joined again");
        eventually(() -> notices.stream().anyMatch(n -> n.contains("Back in office office-1")), "the user is told");
        assertEquals("alpha says: again", agent.call(agent.tool("smcp__alpha__echo").orElseThrow(), args("text", "again"), Cancellation.NONE).text());
    }

    @Test
    void theDesktopResourcesAndDocumentsOfAComputerCanBeRead() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        McpToolResult desktop = agent.call(agent.tool("smcp__alpha__get_desktop").orElseThrow(), Json.object(), Cancellation.NONE);
        assertTrue(desktop.text().contains("window://alpha/main") && desktop.text().contains("The main window of alpha"), desktop.text());
        McpToolResult resources = agent.call(agent.tool("smcp__alpha__get_resources").orElseThrow(), Json.object(), Cancellation.NONE);
        assertTrue(resources.text().contains("dpe://alpha/report-1"), resources.text());
        McpToolResult unknown = agent.call(agent.tool("smcp__alpha__get_resources").orElseThrow(), args("mcp_server", "nope"), Cancellation.NONE);
        assertTrue(unknown.isError() && unknown.text().contains("not found"), unknown.text());
        McpToolResult document = agent.call(agent.tool("smcp__alpha__get_dpe").orElseThrow(), args("uri", "dpe://alpha/report-1"), Cancellation.NONE);
        assertTrue(document.text().contains("access URI: https://files.example/") && document.text().contains("application/pdf"), document.text());
        assertTrue(agent.tool("smcp__alpha__get_desktop").orElseThrow().readOnly());
    }
}
